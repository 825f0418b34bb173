/** describeValue is total like errorMessage: every hostile value becomes short text, and it never throws. */
import { describe, expect, it } from "vitest";
import { describeValue, errorMessage } from "../../../src/contract/errors.js";
import { hostileValues } from "./_hostile.js";

describe("errorMessage and describeValue are total", () => {
	it.each(hostileValues())("%s: neither throws, both give a non-empty string", (_, value) => {
		const message = errorMessage(value);
		const described = describeValue(value);
		expect(typeof message).toBe("string");
		expect(message.length).toBeGreaterThan(0);
		expect(typeof described).toBe("string");
		expect(described.length).toBeGreaterThan(0);
		expect(described.length).toBeLessThanOrEqual(201);
	});

	it("says what it can read, and says plainly when it can read nothing", () => {
		const [, , , badMessage, , , , trapAll, dead] = hostileValues().map(([, v]) => v);
		expect(errorMessage(badMessage)).toBe("Error (its message cannot be read)");
		expect(errorMessage(trapAll)).toBe("a thrown value that cannot be read (its getters or proxy traps throw)");
		expect(describeValue(dead)).toBe("a value that cannot be read (its getters or proxy traps throw)");
		expect(describeValue({ a: 1 })).toBe('{"a":1}');
		expect(describeValue("x".repeat(300), 10)).toBe(`${"x".repeat(10)}…`);
	});
});
