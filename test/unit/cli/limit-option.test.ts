/** `--limit`: the sandbox limits `dev`, `inspect` and `mcp` take, as the policy's `limits`, and the usage errors. */
import { describe, expect, it } from "vitest";
import { cwdPolicy, sandboxLimits } from "../../../src/cli/_dev-host.js";
import { UsageError } from "../../../src/command/args.js";

describe("--limit", () => {
	it("reads counts, binary sizes and none", () => {
		expect(sandboxLimits(["processes=512", "memory=1.5G", "tmp=256M"], true, false)).toEqual({
			processes: 512,
			memoryBytes: 1.5 * 1024 ** 3,
			tmpBytes: 256 * 1024 ** 2,
		});
		expect(sandboxLimits(["tmp=64k", "memory=2GiB", "processes=none"], true, false)).toEqual({
			tmpBytes: 64 * 1024,
			memoryBytes: 2 * 1024 ** 3,
			processes: Number.POSITIVE_INFINITY,
		});
		expect(sandboxLimits(["memory=33554432"], true, false)).toEqual({ memoryBytes: 33554432 });
		// The last one given wins.
		expect(sandboxLimits(["processes=10", "processes=20"], true, false)).toEqual({ processes: 20 });
		expect(sandboxLimits([], false, false)).toBeUndefined();
	});

	it.each([
		[["cpu=2"], /--limit takes processes=N, memory=SIZE or tmp=SIZE, not "cpu=2"/],
		[["processes"], /not "processes"/],
		[["processes=1.5"], /--limit processes takes a whole number, or none, not "1.5"/],
		[["memory=lots"], /--limit memory takes a size such as 512M or 2G, or none, not "lots"/],
		[["tmp=-1M"], /--limit tmp takes a size/],
		[["tmp=99999999T"], /--limit tmp takes a size such as 512M or 2G, or none, not "99999999T"/],
		[["processes=2"], /--limit processes must be at least 8 \(the sandbox needs that to start a shell\), not 2/],
		[["memory=1k"], /--limit memory must be at least 16 MiB/],
	])("refuses %j, saying what it takes", (values, message) => {
		expect(() => sandboxLimits(values, true, false)).toThrow(UsageError);
		expect(() => sandboxLimits(values, true, false)).toThrow(message);
	});

	it("is a usage error without --confine, and over --ssh", () => {
		expect(() => sandboxLimits(["processes=10"], false, false)).toThrow(/give --confine too/);
		expect(() => sandboxLimits(["processes=10"], true, true)).toThrow(/over --ssh there is none/);
	});

	it("goes into the --confine policy", () => {
		expect(cwdPolicy("/p", true, { processes: 9 })).toEqual({
			read: ["/p"],
			confineReads: true,
			limits: { processes: 9 },
		});
		expect(cwdPolicy("/p")).toEqual({ read: ["/p"] });
	});
});
