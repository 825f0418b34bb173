import { describe, expect, it } from "vitest";
import { ExecutionError, err, FileError, ok, unwrap } from "../../../src/contract/result.js";

describe("Result", () => {
	it("unwraps values and throws errors", () => {
		expect(unwrap(ok(3))).toBe(3);
		const error = new FileError("not_found", "/a", "File not found: /a", "ENOENT");
		expect(() => unwrap(err(error))).toThrow(error);
		expect(error).toMatchObject({ name: "FileError", code: "not_found", path: "/a", osCode: "ENOENT" });
		expect(error).toBeInstanceOf(Error);
		const exec = new ExecutionError("timeout", "sleep 9", "Command timed out after 1 seconds: sleep 9");
		expect(exec).toMatchObject({ name: "ExecutionError", code: "timeout", command: "sleep 9" });
	});
});
