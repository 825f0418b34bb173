/** toolsmith/vitest: conformance tests and matchers for vitest (an optional peer dependency). */
export {};
