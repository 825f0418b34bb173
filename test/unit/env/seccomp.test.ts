/**
 * The shell sandbox's seccomp filter, run by a classic BPF interpreter on `seccomp_data` as the
 * kernel fills it, for every architecture table it has: x86-64 (and its x32 calls), i386 (its
 * socketcall included), arm64 and 32-bit arm. The numbers here are the kernel's syscall tables,
 * written out again rather than taken from the filter's source.
 */
import { describe, expect, it } from "vitest";
import { assembleBpf, type SeccompGrants, seccompFilter } from "../../../src/env/_node-seccomp.js";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;

/** seccomp's view of a call (`struct seccomp_data`): the number, the arch, six 64-bit arguments. */
function seccompData(arch: number, nr: number, args: readonly number[] = []): DataView {
	const view = new DataView(new ArrayBuffer(64));
	view.setInt32(0, nr, true);
	view.setUint32(4, arch, true);
	args.forEach((value, index) => {
		view.setUint32(16 + 8 * index, value >>> 0, true);
		view.setUint32(20 + 8 * index, Math.floor(value / 2 ** 32), true);
	});
	return view;
}

/** Runs a classic BPF program as seccomp does (loads, AND, returns, conditional jumps): its verdict. */
function runFilter(program: Uint8Array, data: DataView): number {
	const code = new DataView(program.buffer, program.byteOffset, program.byteLength);
	let accumulator = 0;
	for (let pc = 0; pc * 8 < program.length; pc++) {
		const op = code.getUint16(pc * 8, true);
		const jt = code.getUint8(pc * 8 + 2);
		const jf = code.getUint8(pc * 8 + 3);
		const k = code.getUint32(pc * 8 + 4, true);
		if (op === 0x20) accumulator = data.getUint32(k, true);
		else if (op === 0x54) accumulator = (accumulator & k) >>> 0;
		else if (op === 0x06) return k;
		else if (op === 0x15) pc += accumulator === k ? jt : jf;
		else if (op === 0x35) pc += accumulator >= k ? jt : jf;
		else if (op === 0x45) pc += (accumulator & k) !== 0 ? jt : jf;
		else throw new Error(`unexpected BPF opcode ${op.toString(16)}`);
	}
	throw new Error("the filter ran off its end");
}

interface Table {
	readonly name: string;
	readonly processArch: string;
	readonly auditArch: number;
	readonly socket: number;
	readonly socketpair: number;
	readonly keyrings: readonly number[];
	/** [number, index of the mode argument] */
	readonly chmods: readonly (readonly [number, number])[];
	/** [number, index of the flags, index of the mode] */
	readonly opens: readonly (readonly [number, number, number])[];
	/** creat and mknod: they always create. [number, index of the mode] */
	readonly creates: readonly (readonly [number, number])[];
	/** Ordinary calls: read, write, close, execve (or its arm64 number), exit_group. */
	readonly ordinary: readonly number[];
	readonly socketcall?: number;
}

const TABLES: readonly Table[] = [
	{
		name: "x86-64",
		processArch: "x64",
		auditArch: 0xc000003e,
		socket: 41,
		socketpair: 53,
		keyrings: [248, 249, 250],
		chmods: [
			[90, 1],
			[91, 1],
			[268, 2],
			[452, 2],
		],
		opens: [
			[2, 1, 2],
			[257, 2, 3],
		],
		creates: [
			[85, 1],
			[133, 1],
			[259, 2],
		],
		ordinary: [0, 1, 3, 59, 231],
	},
	{
		name: "i386",
		processArch: "x64",
		auditArch: 0x40000003,
		socket: 359,
		socketpair: 360,
		socketcall: 102,
		keyrings: [286, 287, 288],
		chmods: [
			[15, 1],
			[94, 1],
			[306, 2],
			[452, 2],
		],
		opens: [
			[5, 1, 2],
			[295, 2, 3],
		],
		creates: [
			[8, 1],
			[14, 1],
			[297, 2],
		],
		ordinary: [3, 4, 6, 11, 252],
	},
	{
		name: "arm64",
		processArch: "arm64",
		auditArch: 0xc00000b7,
		socket: 198,
		socketpair: 199,
		keyrings: [217, 218, 219],
		chmods: [
			[52, 1],
			[53, 2],
			[452, 2],
		],
		opens: [[56, 2, 3]],
		creates: [[33, 2]],
		ordinary: [63, 64, 57, 221, 94],
	},
	{
		name: "32-bit arm",
		processArch: "arm64",
		auditArch: 0x40000028,
		socket: 281,
		socketpair: 288,
		keyrings: [309, 310, 311],
		chmods: [
			[15, 1],
			[94, 1],
			[333, 2],
			[452, 2],
		],
		opens: [
			[5, 1, 2],
			[322, 2, 3],
		],
		creates: [
			[8, 1],
			[14, 1],
			[324, 2],
		],
		ordinary: [3, 4, 6, 11, 248],
	},
];

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const AF_PACKET = 17;
const AF_VSOCK = 40;
const SOCK_STREAM = 1;
const SOCK_DGRAM = 2;
const SOCK_RAW = 3;
const SOCK_SEQPACKET = 5;
const SOCK_NONBLOCK = 0o4000;
const SOCK_CLOEXEC = 0o2000000;
const O_CREAT = 0o100;
const O_TMPFILE = 0o20200000;
const S_IFREG = 0o100000;

const GRANTS: readonly SeccompGrants[] = [
	{ unixSockets: false, network: false },
	{ unixSockets: false, network: true },
	{ unixSockets: true, network: false },
	{ unixSockets: true, network: true },
];

const shown = (grants: SeccompGrants) =>
	`unixSockets ${grants.unixSockets ? "on" : "off"}, network ${grants.network ? "on" : "off"}`;

/** An argument list with `value` at `index` and zeros before it. */
const at = (index: number, value: number, rest: Record<number, number> = {}) => {
	const args = [0, 0, 0, 0, 0, 0];
	args[index] = value;
	for (const [i, v] of Object.entries(rest)) args[Number(i)] = v;
	return args;
};

describe.each(TABLES)("the seccomp filter on $name calls", (table) => {
	const call = (grants: SeccompGrants, nr: number, args: readonly number[] = []) => {
		const filter = seccompFilter(grants, table.processArch);
		if (!filter) throw new Error(`no filter for ${table.processArch}`);
		return runFilter(filter, seccompData(table.auditArch, nr, args));
	};

	it.each(GRANTS.map((grants) => [shown(grants), grants] as const))("socket() with %s", (_, grants) => {
		expect(call(grants, table.socket, [AF_UNIX, SOCK_STREAM])).toBe(grants.unixSockets ? ALLOW : EPERM);
		expect(call(grants, table.socket, [AF_UNIX, SOCK_DGRAM])).toBe(grants.unixSockets ? ALLOW : EPERM);
		expect(call(grants, table.socket, [AF_INET, SOCK_STREAM])).toBe(ALLOW);
		expect(call(grants, table.socket, [AF_INET6, SOCK_DGRAM])).toBe(ALLOW);
		for (const family of [AF_NETLINK, AF_VSOCK, AF_PACKET]) {
			expect(call(grants, table.socket, [family, SOCK_RAW])).toBe(grants.network ? ALLOW : EPERM);
		}
	});

	it.each(GRANTS.map((grants) => [shown(grants), grants] as const))("socketpair() with %s", (_, grants) => {
		// A datagram end can aim at any datagram socket by path or abstract name; a stream or
		// seqpacket pair is connected for good.
		for (const type of [SOCK_DGRAM, SOCK_RAW, SOCK_DGRAM | SOCK_CLOEXEC, SOCK_DGRAM | SOCK_NONBLOCK]) {
			expect(call(grants, table.socketpair, [AF_UNIX, type])).toBe(grants.unixSockets ? ALLOW : EPERM);
		}
		for (const type of [SOCK_STREAM, SOCK_SEQPACKET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK]) {
			expect(call(grants, table.socketpair, [AF_UNIX, type])).toBe(ALLOW);
		}
		expect(call(grants, table.socketpair, [AF_NETLINK, SOCK_DGRAM])).toBe(grants.network ? ALLOW : EPERM);
	});

	it("refuses the setuid and setgid bits in chmod and kin, whatever the grants", () => {
		for (const grants of GRANTS) {
			for (const [nr, mode] of table.chmods) {
				expect(call(grants, nr, at(mode, 0o4755))).toBe(EPERM);
				expect(call(grants, nr, at(mode, 0o2755))).toBe(EPERM);
				expect(call(grants, nr, at(mode, 0o6777))).toBe(EPERM);
				expect(call(grants, nr, at(mode, 0o755))).toBe(ALLOW);
				expect(call(grants, nr, at(mode, 0o1777))).toBe(ALLOW);
			}
		}
	});

	it("refuses creating a file with those bits, and leaves other opens alone", () => {
		const grants = GRANTS[0] as SeccompGrants;
		for (const [nr, flags, mode] of table.opens) {
			expect(call(grants, nr, at(mode, 0o4755, { [flags]: O_CREAT }))).toBe(EPERM);
			expect(call(grants, nr, at(mode, 0o2755, { [flags]: O_CREAT | 1 }))).toBe(EPERM);
			expect(call(grants, nr, at(mode, 0o4755, { [flags]: O_TMPFILE | 2 }))).toBe(EPERM);
			expect(call(grants, nr, at(mode, 0o644, { [flags]: O_CREAT }))).toBe(ALLOW);
			// Not creating: the mode argument is not used, whatever it holds.
			expect(call(grants, nr, at(mode, 0o4755, { [flags]: 0 }))).toBe(ALLOW);
		}
		for (const [nr, mode] of table.creates) {
			expect(call(grants, nr, at(mode, S_IFREG | 0o4755))).toBe(EPERM);
			expect(call(grants, nr, at(mode, 0o4755))).toBe(EPERM);
			expect(call(grants, nr, at(mode, S_IFREG | 0o644))).toBe(ALLOW);
		}
	});

	it("makes io_uring, the keyrings and openat2 missing, and allows ordinary calls", () => {
		for (const grants of GRANTS) {
			for (const nr of [425, 426, 427, 437, ...table.keyrings]) expect(call(grants, nr)).toBe(ENOSYS);
			for (const nr of table.ordinary) expect(call(grants, nr, [1, 2, 3])).toBe(ALLOW);
		}
	});
});

describe("the seccomp filter's other doors", () => {
	const I386 = 0x40000003;
	const X64 = 0xc000003e;
	const SYS_SOCKET = 1;
	const SYS_CONNECT = 3;
	const SYS_SOCKETPAIR = 8;
	const SYS_SENDTO = 11;

	it.each(GRANTS.map((grants) => [shown(grants), grants] as const))(
		"refuses i386 socketcall's socket and socketpair unless everything is granted (%s)",
		(_, grants) => {
			const filter = seccompFilter(grants, "x64") as Uint8Array;
			const everything = grants.unixSockets && grants.network;
			// socketcall's arguments lie in memory, out of the filter's reach: the call number decides.
			expect(runFilter(filter, seccompData(I386, 102, [SYS_SOCKET]))).toBe(everything ? ALLOW : EPERM);
			expect(runFilter(filter, seccompData(I386, 102, [SYS_SOCKETPAIR]))).toBe(everything ? ALLOW : EPERM);
			expect(runFilter(filter, seccompData(I386, 102, [SYS_CONNECT]))).toBe(ALLOW);
			expect(runFilter(filter, seccompData(I386, 102, [SYS_SENDTO]))).toBe(ALLOW);
		},
	);

	it("refuses x32 calls and any other architecture's whole", () => {
		const filter = seccompFilter(GRANTS[3] as SeccompGrants, "x64") as Uint8Array;
		expect(runFilter(filter, seccompData(X64, 0x40000000 + 41, [AF_INET]))).toBe(ENOSYS);
		expect(runFilter(filter, seccompData(X64, 0x40000000 + 1))).toBe(ENOSYS);
		expect(runFilter(filter, seccompData(0xc00000b7, 63))).toBe(ENOSYS);
		const arm = seccompFilter(GRANTS[3] as SeccompGrants, "arm64") as Uint8Array;
		expect(runFilter(arm, seccompData(X64, 0))).toBe(ENOSYS);
		expect(seccompFilter(GRANTS[0] as SeccompGrants, "riscv64")).toBeUndefined();
	});

	it("assembles jumps to labels and refuses what it cannot encode", () => {
		const program = assembleBpf([{ load: 0 }, { jset: 2, to: "yes" }, { ret: 1 }, { label: "yes" }, { ret: 7 }]);
		expect(runFilter(program, seccompData(0, 3))).toBe(7);
		expect(runFilter(program, seccompData(0, 1))).toBe(1);
		expect(() => assembleBpf([{ jeq: 1, to: "nowhere" }])).toThrow(/no label nowhere/);
		expect(() => assembleBpf([{ label: "a" }, { label: "a" }, { ret: 0 }])).toThrow(/defined twice/);
		const far = [
			{ jeq: 1, to: "end" },
			...Array.from({ length: 300 }, () => ({ ret: 0 })),
			{ label: "end" },
			{ ret: 1 },
		];
		expect(() => assembleBpf(far)).toThrow(/out of range/);
	});
});
