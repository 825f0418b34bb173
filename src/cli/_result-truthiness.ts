/**
 * The type-aware part of `toolsmith check`: conditions that test an env `Result` (always truthy, being
 * an object) instead of its `.ok`, and missing awaits: conditions that test a Promise (TS2801 covers
 * only some forms: not `!p`, not `while (p)`) and statements that drop an env call's Promise.
 *
 * TypeScript has no check for conditions that are always true because their type is an object (only
 * for Promises, TS2801, and uncalled functions, TS2774), and linters without types cannot know what
 * `await env.readTextFile(p)` returns. So this walks the project's own program with the project's
 * own `typescript`, resolved from the project: toolsmith never ships or depends on a compiler, and the
 * types are those the project's `tsc --noEmit` sees (the same compiler, the same options).
 */
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve, sep } from "node:path";
import type * as ts from "typescript";
import { errorMessage } from "../contract/errors.js";
import { displayPath } from "../extensions/node-event-lines.js";

/**
 * The `typescript` module as `require` gives it from the project (any 5.x has everything used here).
 * A namespace import of a CommonJS module types a synthetic `default` that the module itself lacks.
 */
type TypeScript = Omit<typeof ts, "default">;

/**
 * A finding: a condition whose value is a Result-shaped object (`result`), a condition whose value is
 * a Promise, an unawaited call (`promise`), or a statement that drops the Promise of an env call
 * (`dropped`).
 */
export interface ResultCondition {
	readonly kind: "result" | "promise" | "dropped";
	/** The source file, absolute. */
	readonly file: string;
	/** 1-based. */
	readonly line: number;
	/** 1-based. */
	readonly column: number;
	readonly message: string;
}

/**
 * Whether `type` is always a truthy Result: every member of the union is an object (or an
 * intersection of objects) with `ok` of a boolean literal type and a `value` or an `error`. A member
 * that may be null, undefined or a primitive makes the condition meaningful, so it is not reported.
 */
function isAlwaysTruthyResult(tsApi: TypeScript, checker: ts.TypeChecker, type: ts.Type, at: ts.Node): boolean {
	const members = type.isUnion() ? type.types : [type];
	return (
		members.length > 0 &&
		members.every((member) => {
			const objectLike =
				(member.flags & tsApi.TypeFlags.Object) !== 0 ||
				(member.isIntersection() && member.types.every((part) => (part.flags & tsApi.TypeFlags.Object) !== 0));
			if (!objectLike) return false;
			const ok = checker.getPropertyOfType(member, "ok");
			if (ok === undefined) return false;
			if ((checker.getTypeOfSymbolAtLocation(ok, at).flags & tsApi.TypeFlags.BooleanLiteral) === 0) return false;
			return (
				checker.getPropertyOfType(member, "value") !== undefined ||
				checker.getPropertyOfType(member, "error") !== undefined
			);
		})
	);
}

/**
 * Whether every member of `type` is a Promise (an object with a `then` method): always truthy.
 * `orUndefined`: members `undefined` and `void` are let through too (an optional call: `env.findFiles?.(…)`).
 */
function isAlwaysPromise(tsApi: TypeScript, checker: ts.TypeChecker, type: ts.Type, orUndefined = false): boolean {
	const all = type.isUnion() ? type.types : [type];
	const members = orUndefined
		? all.filter((member) => (member.flags & (tsApi.TypeFlags.Undefined | tsApi.TypeFlags.Void)) === 0)
		: all;
	return (
		members.length > 0 &&
		members.every((member) => {
			if ((member.flags & tsApi.TypeFlags.Object) === 0) return false;
			const then = checker.getPropertyOfType(member, "then");
			return then !== undefined && (then.flags & tsApi.SymbolFlags.Method) !== 0;
		})
	);
}

/** The env methods that return a Promise: `ExecutionEnv`'s (FileSystem and Shell). */
const ENV_ASYNC_METHODS = new Set([
	"canonicalPath",
	"exists",
	"fileInfo",
	"listDir",
	"readTextFile",
	"readBinaryFile",
	"readBinaryRange",
	"writeFile",
	"appendFile",
	"rename",
	"remove",
	"createDir",
	"createTempFile",
	"createTempDir",
	"exec",
	"findFiles",
	"searchText",
]);

/**
 * Calls `each` for every call of an env-named method (`x.writeFile(…)`, `x?.exec(…)`) whose value a
 * statement drops: the statement itself, either branch of a `?:` statement, the right operand of an
 * `&&`/`||`/`??` statement, the operands of a `,` statement. `void x.writeFile(…)` drops it on purpose
 * and is left alone.
 */
function forEachDroppedEnvCall(tsApi: TypeScript, file: ts.SourceFile, each: (call: ts.CallExpression) => void): void {
	const k = tsApi.SyntaxKind;
	const dropped = (expression: ts.Expression): void => {
		let node = expression;
		while (tsApi.isParenthesizedExpression(node)) node = node.expression;
		if (tsApi.isCallExpression(node)) {
			const callee = node.expression;
			const name = tsApi.isPropertyAccessExpression(callee)
				? callee.name.text
				: tsApi.isElementAccessExpression(callee) && tsApi.isStringLiteralLike(callee.argumentExpression)
					? callee.argumentExpression.text
					: undefined;
			if (name !== undefined && ENV_ASYNC_METHODS.has(name)) each(node);
		} else if (tsApi.isConditionalExpression(node)) {
			dropped(node.whenTrue);
			dropped(node.whenFalse);
		} else if (tsApi.isBinaryExpression(node)) {
			const op = node.operatorToken.kind;
			if (op === k.AmpersandAmpersandToken || op === k.BarBarToken || op === k.QuestionQuestionToken) {
				dropped(node.right);
			} else if (op === k.CommaToken) {
				dropped(node.left);
				dropped(node.right);
			}
		}
	};
	const visit = (node: ts.Node): void => {
		if (tsApi.isExpressionStatement(node)) dropped(node.expression);
		tsApi.forEachChild(node, visit);
	};
	visit(file);
}

/**
 * Whether `type` is an env: it has the file methods (`readTextFile` and `writeFile`) or the shell's
 * (`exec`). `ExecutionEnv`, `FileSystem`, `Shell` and the envs' classes all are, however reached
 * (`ctx.env`, a destructured `{ env }`, a variable).
 */
function isEnvLike(checker: ts.TypeChecker, type: ts.Type): boolean {
	const apparent = checker.getApparentType(type);
	const has = (name: string) => checker.getPropertyOfType(apparent, name) !== undefined;
	return (has("readTextFile") && has("writeFile")) || has("exec");
}

/**
 * Whether `file` may drop an env call's Promise, judged from its syntax alone (see
 * `mayTestResults`): it has a statement that calls a method with an env method's name.
 */
export function mayDropEnvPromises(tsApi: TypeScript, file: ts.SourceFile): boolean {
	let found = false;
	forEachDroppedEnvCall(tsApi, file, () => {
		found = true;
	});
	return found;
}

/** Short source text for a suggestion: the expression itself, or `…` in its place when it is long. */
function shortText(node: ts.Node, file: ts.SourceFile): string {
	const text = node.getText(file).replace(/\s+/g, " ");
	return text.length <= 60 ? text : "…";
}

/**
 * Whether the syntax alone says the value is not an object: a comparison, arithmetic, `typeof`, a
 * literal… Asking the checker for such a type can cost seconds (the first question inside a
 * `defineTool({ … })` call makes it infer the whole call), so these are never asked about.
 */
function cannotBeObject(tsApi: TypeScript, node: ts.Expression): boolean {
	const k = tsApi.SyntaxKind;
	if (tsApi.isBinaryExpression(node)) {
		const op = node.operatorToken.kind;
		// Assignments, `??` and `,` pass an operand's value through; every other operator makes a primitive.
		return !(
			(op >= k.FirstAssignment && op <= k.LastAssignment) ||
			op === k.QuestionQuestionToken ||
			op === k.CommaToken
		);
	}
	return (
		tsApi.isPrefixUnaryExpression(node) ||
		tsApi.isPostfixUnaryExpression(node) ||
		tsApi.isTypeOfExpression(node) ||
		tsApi.isVoidExpression(node) ||
		tsApi.isDeleteExpression(node) ||
		tsApi.isLiteralExpression(node) ||
		tsApi.isTemplateExpression(node) ||
		node.kind === k.TrueKeyword ||
		node.kind === k.FalseKeyword ||
		node.kind === k.NullKeyword ||
		tsApi.isFunctionExpression(node) ||
		tsApi.isArrowFunction(node) ||
		tsApi.isClassExpression(node)
	);
}

/** `r`, `this.r`, `state.last.read`: short enough to name in the suggestion. */
function isPlainReference(tsApi: TypeScript, node: ts.Expression): boolean {
	if (tsApi.isIdentifier(node) || node.kind === tsApi.SyntaxKind.ThisKeyword) return true;
	return tsApi.isPropertyAccessExpression(node) && !node.questionDotToken && isPlainReference(tsApi, node.expression);
}

const isLogical = (tsApi: TypeScript, node: ts.Node): node is ts.BinaryExpression =>
	tsApi.isBinaryExpression(node) &&
	(node.operatorToken.kind === tsApi.SyntaxKind.AmpersandAmpersandToken ||
		node.operatorToken.kind === tsApi.SyntaxKind.BarBarToken);

const isNot = (tsApi: TypeScript, node: ts.Node): node is ts.PrefixUnaryExpression =>
	tsApi.isPrefixUnaryExpression(node) && node.operator === tsApi.SyntaxKind.ExclamationToken;

/**
 * Calls `each` once for every expression of `file` whose truthiness is tested and whose syntax allows
 * an object: the conditions of `if`, `while`, `do` and `for`, of `?:`, the operand of `!`, the
 * argument of `Boolean(…)` (when `isBooleanCall` says the callee is the global one), the left operand
 * of `&&` and `||`, and both operands when the `&&`/`||` is itself a condition. `negated`: under an
 * odd number of `!`, so a suggestion can keep the `!` (`if (!r.ok)`).
 */
function forEachTestedExpression(
	tsApi: TypeScript,
	file: ts.SourceFile,
	isBooleanCall: (call: ts.CallExpression) => boolean,
	each: (node: ts.Expression, negated: boolean) => void,
): void {
	// An expression is reached more than once (`r` of `!r` inside `if (!r)`, nested `&&`): once is enough.
	const seen = new Set<ts.Node>();
	const tested = (condition: ts.Expression, negated: boolean): void => {
		let node = condition;
		while (tsApi.isParenthesizedExpression(node)) node = node.expression;
		if (isLogical(tsApi, node)) {
			tested(node.left, negated);
			tested(node.right, negated);
		} else if (isNot(tsApi, node)) {
			tested(node.operand, !negated);
		} else if (!seen.has(node) && !cannotBeObject(tsApi, node)) {
			seen.add(node);
			each(node, negated);
		}
	};
	const visit = (node: ts.Node): void => {
		if (tsApi.isIfStatement(node) || tsApi.isWhileStatement(node) || tsApi.isDoStatement(node)) {
			tested(node.expression, false);
		} else if (tsApi.isForStatement(node)) {
			if (node.condition !== undefined) tested(node.condition, false);
		} else if (tsApi.isConditionalExpression(node)) {
			tested(node.condition, false);
		} else if (isNot(tsApi, node)) {
			tested(node.operand, true);
		} else if (isLogical(tsApi, node)) {
			// Outside a condition only the left operand is tested; the right one is the value.
			tested(node.left, false);
		} else if (
			tsApi.isCallExpression(node) &&
			tsApi.isIdentifier(node.expression) &&
			node.expression.text === "Boolean" &&
			node.arguments[0] !== undefined &&
			isBooleanCall(node)
		) {
			tested(node.arguments[0], false);
		}
		tsApi.forEachChild(node, visit);
	};
	visit(file);
}

/**
 * Whether `file` tests the truthiness of anything that could be a Result, judged from its syntax
 * alone. A file without one cannot hold a finding, so it need not be in the program: what a test
 * file imports (vitest and vite's types, say) is then never parsed.
 */
export function mayTestResults(tsApi: TypeScript, file: ts.SourceFile): boolean {
	let found = false;
	forEachTestedExpression(
		tsApi,
		file,
		() => true,
		() => {
			found = true;
		},
	);
	return found;
}

/**
 * Every expression in the program's own source files (not declaration files, nothing under
 * node_modules; only those `include` accepts, by absolute path, when given) whose truthiness is
 * tested (see `forEachTestedExpression`) and whose value is always a truthy Result.
 */
export function findResultConditions(
	tsApi: TypeScript,
	program: ts.Program,
	include: (file: string) => boolean = () => true,
): ResultCondition[] {
	const checker = program.getTypeChecker();
	const found: ResultCondition[] = [];
	// The global `Boolean`, not a local function of that name.
	const isGlobalBoolean = (call: ts.CallExpression): boolean =>
		checker.getSymbolAtLocation(call.expression)?.declarations?.every((d) => d.getSourceFile().isDeclarationFile) ??
		false;
	for (const file of program.getSourceFiles()) {
		if (file.isDeclarationFile || /[\\/]node_modules[\\/]/.test(file.fileName) || !include(resolve(file.fileName)))
			continue;
		const at = (node: ts.Node) => {
			const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
			return { file: resolve(file.fileName), line: line + 1, column: character + 1 };
		};
		forEachTestedExpression(tsApi, file, isGlobalBoolean, (node, negated) => {
			const type = checker.getTypeAtLocation(node);
			if (isAlwaysPromise(tsApi, checker, type)) {
				const awaited = `(await ${shortText(node, file)})`;
				found.push({
					kind: "promise",
					...at(node),
					message: `this condition tests a Promise, which is always true: the call is not awaited; await it (if (${negated ? `!${awaited}` : awaited.slice(1, -1)}) …)`,
				});
				return;
			}
			if (!isAlwaysTruthyResult(tsApi, checker, type, node)) return;
			const name = isPlainReference(tsApi, node) ? node.getText(file) : "result";
			found.push({
				kind: "result",
				...at(node),
				message: `this condition tests a Result, which is an object and always true; test its .ok instead (if (${negated ? "!" : ""}${name}.ok) …)`,
			});
		});
		forEachDroppedEnvCall(tsApi, file, (call) => {
			const callee = call.expression;
			if (!tsApi.isPropertyAccessExpression(callee) && !tsApi.isElementAccessExpression(callee)) return;
			if (!isEnvLike(checker, checker.getTypeAtLocation(callee.expression))) return;
			if (!isAlwaysPromise(tsApi, checker, checker.getTypeAtLocation(call), true)) return;
			found.push({
				kind: "dropped",
				...at(call),
				message: `the Promise of ${shortText(callee, file)}(…) is dropped: the call may still run after the tool returns, and its Result (a failure included) is lost; await it and check .ok, or write void before it to drop it on purpose`,
			});
		});
	}
	return found;
}

/** What `checkResultConditions` did: its findings, and the parts it could not check, with why. */
export interface ResultConditionsReport {
	readonly findings: readonly ResultCondition[];
	/** One reason per part not checked, paths relative to the cwd. */
	readonly skipped: readonly string[];
	/** The tsconfig files whose programs were checked, absolute. */
	readonly checked: readonly string[];
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** The nearest `tsconfig.json` in or above `path` (the folder of a file path). */
function nearestTsconfig(path: string): string | undefined {
	let dir = isDirectory(path) ? path : dirname(path);
	for (;;) {
		const candidate = join(dir, "tsconfig.json");
		if (existsSync(candidate)) return candidate;
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
}

/** The project's own `typescript`, or undefined when it has none that works. */
function projectTypeScript(projectDir: string): TypeScript | undefined {
	try {
		// createRequire needs a file in the folder, not the folder itself; it need not exist.
		const tsApi = createRequire(join(projectDir, "package.json"))("typescript") as TypeScript;
		return typeof tsApi.createProgram === "function" && typeof tsApi.getParsedCommandLineOfConfigFile === "function"
			? tsApi
			: undefined;
	} catch {
		return undefined;
	}
}

/**
 * Check the projects `paths` lie in: for each nearest `tsconfig.json`, the files it includes under
 * those paths, in one program built with the project's own `typescript` and the project's options.
 * Only the files whose syntax tests something that could be a Result are its roots (with the
 * config's declaration files), so the program is no larger than those files need. A path without a
 * tsconfig, a project without `typescript`, a config that cannot be read, one with `strictNullChecks`
 * off (its types cannot tell a Result from a Result that may be undefined) or one that includes no
 * file under the paths is skipped, with the reason. Never throws.
 */
export function checkResultConditions(paths: readonly string[], cwd: string): ResultConditionsReport {
	const findings: ResultCondition[] = [];
	const skipped: string[] = [];
	const checked: string[] = [];
	const byConfig = new Map<string, string[]>();
	const withoutConfig: string[] = [];
	for (const input of paths) {
		const path = resolve(cwd, input);
		const config = nearestTsconfig(path);
		if (config === undefined) withoutConfig.push(input);
		else byConfig.set(config, [...(byConfig.get(config) ?? []), path]);
	}
	if (withoutConfig.length > 0) skipped.push(`no tsconfig.json in or above ${withoutConfig.join(", ")}`);
	for (const [config, configPaths] of byConfig) {
		const projectDir = dirname(config);
		const tsApi = projectTypeScript(projectDir);
		if (tsApi === undefined) {
			skipped.push(
				`typescript cannot be resolved from ${displayPath(projectDir, cwd)} (it is a devDependency of the project)`,
			);
			continue;
		}
		let fatal: ts.Diagnostic | undefined;
		const parsed = tsApi.getParsedCommandLineOfConfigFile(config, undefined, {
			...tsApi.sys,
			onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
				fatal = diagnostic;
			},
		});
		if (parsed === undefined) {
			const why = fatal ? tsApi.flattenDiagnosticMessageText(fatal.messageText, " ") : "unreadable";
			skipped.push(`${displayPath(config, cwd)} cannot be read: ${why}`);
			continue;
		}
		if (!(parsed.options.strictNullChecks ?? parsed.options.strict ?? false)) {
			skipped.push(
				`${displayPath(config, cwd)} has strictNullChecks off, so its types cannot tell a Result from one that may be undefined`,
			);
			continue;
		}
		// The files asked about: in a project (`toolsmith check .`) all of them; in a larger tree only
		// the extensions named, so a check of one folder does not build and walk the whole repository.
		const covers = (file: string) => {
			const absolute = resolve(file);
			return configPaths.some(
				(path) => absolute === path || absolute.startsWith(path.endsWith(sep) ? path : `${path}${sep}`),
			);
		};
		const covered = parsed.fileNames.filter(covers);
		if (covered.length === 0) {
			const names = configPaths.map((path) => displayPath(path, cwd)).join(", ");
			skipped.push(
				`${names} ${configPaths.length === 1 ? "is" : "are"} not among the files of ${displayPath(config, cwd)}`,
			);
			continue;
		}
		try {
			const declaration = (file: string) => /\.d\.[cm]?ts$/.test(file);
			const roots = covered.filter((file) => {
				if (declaration(file)) return false;
				const text = tsApi.sys.readFile(file);
				if (text === undefined) return false;
				const source = tsApi.createSourceFile(file, text, tsApi.ScriptTarget.Latest);
				return mayTestResults(tsApi, source) || mayDropEnvPromises(tsApi, source);
			});
			if (roots.length === 0) {
				checked.push(config);
				continue;
			}
			// Declaration files the config includes stay: they may declare globals or modules the code relies on.
			const program = tsApi.createProgram({
				rootNames: [...roots, ...parsed.fileNames.filter(declaration)],
				options: parsed.options,
				...(parsed.projectReferences ? { projectReferences: parsed.projectReferences } : {}),
			});
			findings.push(...findResultConditions(tsApi, program, covers));
			checked.push(config);
		} catch (error) {
			// A compiler too old or too new for the API used here: say so rather than fail the command.
			skipped.push(`typescript ${tsApi.version} could not check ${displayPath(config, cwd)}: ${errorMessage(error)}`);
		}
	}
	return { findings, skipped, checked };
}
