/**
 * The shell sandbox's seccomp filter (Linux; classic BPF, as bubblewrap's `--seccomp` takes it).
 * Namespaces and read-only mounts confine where a command writes; this filter closes the doors
 * they leave open: Unix sockets (which reach a socket by path or, with the host's network, by
 * abstract name, wherever the mounts put it), socket families that need no network to reach the
 * kernel or a hypervisor (netlink, vsock, …), setuid and setgid files a command would leave behind
 * in a write root for the host's users to run, `io_uring` (it runs calls past the filter) and the
 * kernel keyrings (root's would be shared). Native and 32-bit compat calls alike; other
 * architectures' calls fail.
 */

/** What the policy grants commands, as far as the filter is concerned. */
export interface SeccompGrants {
	/** Unix sockets of any kind: `socket(AF_UNIX)` and datagram `socketpair`s. */
	readonly unixSockets: boolean;
	/** The network: without it, only IPv4 and IPv6 sockets (in the sandbox's own, empty network). */
	readonly network: boolean;
}

/** A call whose mode argument is checked for the setuid and setgid bits. */
interface ModeCall {
	readonly nr: number;
	/** The index of the mode argument. */
	readonly mode: number;
	/** The index of the open flags: the mode counts only when they create a file. */
	readonly flags?: number;
}

/** The syscall numbers the filter looks at, for one architecture as seccomp reports it. */
interface SyscallTable {
	/** `AUDIT_ARCH_*`, as in `seccomp_data.arch`. */
	readonly arch: number;
	readonly socket: number;
	readonly socketpair: number;
	/** i386 multiplexes socket calls through `socketcall(call, args)`, whose arguments lie in memory. */
	readonly socketcall?: number;
	/** add_key, request_key, keyctl. */
	readonly keyrings: readonly number[];
	/** chmod and kin, the opens that create, mknod and kin. */
	readonly modes: readonly ModeCall[];
	/** x86-64: numbers with this bit set are x32 calls, refused whole. */
	readonly x32Bit?: number;
}

/** io_uring_setup, io_uring_enter, io_uring_register: the same numbers on every table here. */
const IO_URING = [425, 426, 427];
/** openat2 passes its mode in a struct the filter cannot read: refused as missing, so callers fall back to openat. */
const OPENAT2 = 437;
const FCHMODAT2 = 452;

/** The native table and its 32-bit compat table, by `process.arch`. */
const SYSCALLS: Readonly<Record<string, readonly SyscallTable[]>> = {
	x64: [
		{
			arch: 0xc000003e,
			socket: 41,
			socketpair: 53,
			keyrings: [248, 249, 250],
			// chmod, fchmod, fchmodat, fchmodat2; open, creat, openat; mknod, mknodat
			modes: [
				{ nr: 90, mode: 1 },
				{ nr: 91, mode: 1 },
				{ nr: 268, mode: 2 },
				{ nr: FCHMODAT2, mode: 2 },
				{ nr: 2, mode: 2, flags: 1 },
				{ nr: 85, mode: 1 },
				{ nr: 257, mode: 3, flags: 2 },
				{ nr: 133, mode: 1 },
				{ nr: 259, mode: 2 },
			],
			x32Bit: 0x40000000,
		},
		{
			arch: 0x40000003,
			socket: 359,
			socketpair: 360,
			socketcall: 102,
			keyrings: [286, 287, 288],
			modes: [
				{ nr: 15, mode: 1 },
				{ nr: 94, mode: 1 },
				{ nr: 306, mode: 2 },
				{ nr: FCHMODAT2, mode: 2 },
				{ nr: 5, mode: 2, flags: 1 },
				{ nr: 8, mode: 1 },
				{ nr: 295, mode: 3, flags: 2 },
				{ nr: 14, mode: 1 },
				{ nr: 297, mode: 2 },
			],
		},
	],
	arm64: [
		{
			arch: 0xc00000b7,
			socket: 198,
			socketpair: 199,
			keyrings: [217, 218, 219],
			// fchmod, fchmodat, fchmodat2; openat; mknodat (the generic table has no chmod, open, creat, mknod)
			modes: [
				{ nr: 52, mode: 1 },
				{ nr: 53, mode: 2 },
				{ nr: FCHMODAT2, mode: 2 },
				{ nr: 56, mode: 3, flags: 2 },
				{ nr: 33, mode: 2 },
			],
		},
		{
			arch: 0x40000028,
			socket: 281,
			socketpair: 288,
			keyrings: [309, 310, 311],
			modes: [
				{ nr: 15, mode: 1 },
				{ nr: 94, mode: 1 },
				{ nr: 333, mode: 2 },
				{ nr: FCHMODAT2, mode: 2 },
				{ nr: 5, mode: 2, flags: 1 },
				{ nr: 8, mode: 1 },
				{ nr: 322, mode: 3, flags: 2 },
				{ nr: 14, mode: 1 },
				{ nr: 324, mode: 2 },
			],
		},
	],
};

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
/** The socket types whose Unix socketpairs are connected for good: a stream and a sequenced packet socket. */
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** The type argument's low bits; the rest are SOCK_NONBLOCK and SOCK_CLOEXEC. */
const SOCK_TYPE_MASK = 0xf;
/** socketcall's call numbers: SYS_SOCKET and SYS_SOCKETPAIR. */
const SYS_SOCKET = 1;
const SYS_SOCKETPAIR = 8;
const S_ISUID_ISGID = 0o6000;
/** O_CREAT and __O_TMPFILE's own bit, the same on x86 and arm (the latter's O_DIRECTORY differs, not these). */
const CREATING = 0o100 | 0o20000000;
const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => 0x00050000 | errno;

/** `seccomp_data`'s fields: the call number, the arch, and argument `n`'s low 32 bits (little-endian). */
const NR = 0;
const ARCH = 4;
const arg = (n: number) => 16 + 8 * n;

/** One classic BPF instruction, with jumps to labels resolved when the program is assembled. */
export type BpfOp =
	| { readonly load: number }
	| { readonly and: number }
	| { readonly ret: number }
	| { readonly jeq: number; readonly to: string }
	| { readonly jge: number; readonly to: string }
	| { readonly jset: number; readonly to: string }
	| { readonly label: string };

/** Ops that end in ALLOW or EPERM for a socket family in the accumulator, under `grants`. */
function familyVerdict(grants: SeccompGrants): BpfOp[] {
	const ops: BpfOp[] = [{ jeq: AF_UNIX, to: grants.unixSockets ? "allow" : "eperm" }];
	if (grants.network) return [...ops, { ret: RET_ALLOW }];
	return [...ops, { jeq: AF_INET, to: "allow" }, { jeq: AF_INET6, to: "allow" }, { ret: retErrno(EPERM) }];
}

/**
 * The seccomp filter for this process's architecture under `grants`, or undefined where there is
 * no table. For native and 32-bit compat calls alike:
 * - `socket`: `AF_UNIX` refused (EPERM) unless `unixSockets`; without `network`, every family
 *   but IPv4 and IPv6 refused too (netlink, vsock, packet, …).
 * - `socketpair`: a Unix pair of any type but stream and seqpacket (a datagram end can `connect()`
 *   or `sendto()` any datagram socket by path or abstract name) refused unless `unixSockets`; the
 *   family rule as for `socket`.
 * - `socketcall`'s `socket` and `socketpair` (their arguments are out of the filter's reach)
 *   refused unless both are granted.
 * - chmod and kin with the setuid or setgid bit, and opens and mknods that would create a file
 *   with one, refused: a root command would leave a setuid-root program in the project.
 * - `io_uring_*`, the keyring calls, `openat2` and x32 calls: ENOSYS; other architectures: ENOSYS.
 */
export function seccompFilter(grants: SeccompGrants, arch: string = process.arch): Uint8Array | undefined {
	const tables = SYSCALLS[arch];
	if (!tables) return undefined;
	const ops: BpfOp[] = [{ load: ARCH }];
	tables.forEach((table, index) => {
		ops.push({ jeq: table.arch, to: `arch${index}` });
	});
	ops.push({ ret: retErrno(ENOSYS) });
	const modeChecks = new Set<string>();
	tables.forEach((table, index) => {
		ops.push({ label: `arch${index}` }, { load: NR });
		if (table.x32Bit !== undefined) ops.push({ jge: table.x32Bit, to: "nosys" });
		for (const nr of [...IO_URING, ...table.keyrings, OPENAT2]) ops.push({ jeq: nr, to: "nosys" });
		ops.push({ jeq: table.socket, to: "socket" }, { jeq: table.socketpair, to: "socketpair" });
		if (table.socketcall !== undefined) ops.push({ jeq: table.socketcall, to: "socketcall" });
		for (const call of table.modes) {
			const check = call.flags === undefined ? `mode${call.mode}` : `create${call.flags}-${call.mode}`;
			modeChecks.add(check);
			ops.push({ jeq: call.nr, to: check });
		}
		ops.push({ ret: RET_ALLOW });
	});
	ops.push({ label: "socket" }, { load: arg(0) }, ...familyVerdict(grants));
	ops.push({ label: "socketpair" }, { load: arg(0) });
	if (grants.unixSockets) ops.push(...familyVerdict(grants));
	else {
		ops.push({ jeq: AF_UNIX, to: "unixpair" }, ...familyVerdict(grants));
		ops.push(
			{ label: "unixpair" },
			{ load: arg(1) },
			{ and: SOCK_TYPE_MASK },
			{ jeq: SOCK_STREAM, to: "allow" },
			{ jeq: SOCK_SEQPACKET, to: "allow" },
			{ ret: retErrno(EPERM) },
		);
	}
	if (tables.some((table) => table.socketcall !== undefined)) {
		ops.push({ label: "socketcall" });
		if (grants.unixSockets && grants.network) ops.push({ ret: RET_ALLOW });
		else ops.push({ load: arg(0) }, { jeq: SYS_SOCKET, to: "eperm" }, { jeq: SYS_SOCKETPAIR, to: "eperm" });
		ops.push({ ret: RET_ALLOW });
	}
	// Opens look at the mode only when they create a file; then every mode check is the same.
	const modeArgs = new Set<number>();
	for (const check of [...modeChecks].sort()) {
		const created = /^create(\d+)-(\d+)$/.exec(check);
		if (!created) modeArgs.add(Number(check.slice("mode".length)));
		else {
			modeArgs.add(Number(created[2]));
			ops.push({ label: check }, { load: arg(Number(created[1])) });
			ops.push({ jset: CREATING, to: `mode${created[2]}` }, { ret: RET_ALLOW });
		}
	}
	for (const index of [...modeArgs].sort()) {
		ops.push({ label: `mode${index}` }, { load: arg(index) }, { jset: S_ISUID_ISGID, to: "eperm" }, { ret: RET_ALLOW });
	}
	ops.push({ label: "allow" }, { ret: RET_ALLOW });
	ops.push({ label: "eperm" }, { ret: retErrno(EPERM) }, { label: "nosys" }, { ret: retErrno(ENOSYS) });
	return assembleBpf(ops);
}

/** Classic BPF bytes for `ops` (8 bytes an instruction, host byte order), labels resolved. */
export function assembleBpf(ops: readonly BpfOp[]): Uint8Array {
	const at = new Map<string, number>();
	let count = 0;
	for (const op of ops) {
		if ("label" in op) {
			if (at.has(op.label)) throw new Error(`seccomp filter: label ${op.label} defined twice`);
			at.set(op.label, count);
		} else count++;
	}
	const bytes = new Uint8Array(count * 8);
	const view = new DataView(bytes.buffer);
	const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
	let index = 0;
	const offset = (label: string) => {
		const target = at.get(label);
		if (target === undefined) throw new Error(`seccomp filter: no label ${label}`);
		const jump = target - index - 1;
		if (jump < 0 || jump > 255) throw new Error(`seccomp filter: jump to ${label} out of range`);
		return jump;
	};
	for (const op of ops) {
		if ("label" in op) continue;
		let code: number;
		let k: number;
		let jt = 0;
		if ("load" in op) {
			code = 0x20; // BPF_LD | BPF_W | BPF_ABS
			k = op.load;
		} else if ("and" in op) {
			code = 0x54; // BPF_ALU | BPF_AND | BPF_K
			k = op.and;
		} else if ("ret" in op) {
			code = 0x06; // BPF_RET | BPF_K
			k = op.ret;
		} else if ("jeq" in op) {
			code = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
			k = op.jeq;
			jt = offset(op.to);
		} else if ("jge" in op) {
			code = 0x35; // BPF_JMP | BPF_JGE | BPF_K
			k = op.jge;
			jt = offset(op.to);
		} else {
			code = 0x45; // BPF_JMP | BPF_JSET | BPF_K
			k = op.jset;
			jt = offset(op.to);
		}
		// Every jump falls through when false.
		view.setUint16(index * 8, code, little);
		view.setUint8(index * 8 + 2, jt);
		view.setUint8(index * 8 + 3, 0);
		view.setUint32(index * 8 + 4, k >>> 0, little);
		index++;
	}
	return bytes;
}
