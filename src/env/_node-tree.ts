/**
 * The operations of NodeExecutionEnv that change the tree (Node only): `rename`, `remove`,
 * `createDir` and the env's own temp files and folders. Folders are reached through the env's
 * path access (held open and checked under a policy), one code path with or without a policy.
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import { makeFolder, mapFsError } from "./_node-fs.js";
import type { PinnedDir } from "./_node-path-policy.js";
import { absoluteIn, type NodeEnvState } from "./_node-state.js";
import { affixProblem, fileError, osCodeOf } from "./errors.js";
import { basename, dirname } from "./path.js";

export async function rename(state: NodeEnvState, from: string, to: string): Promise<Result<void, FileError>> {
	const source = absoluteIn(state, from);
	if (!source.ok) return source;
	const dest = absoluteIn(state, to);
	if (!dest.ok) return dest;
	const { access } = state;
	const denied = (await access.check(source.value, "write", false)) ?? (await access.check(dest.value, "write", false));
	if (denied) return err(denied);
	let fromPin: PinnedDir | undefined;
	let toPin: PinnedDir | undefined;
	try {
		const pinnedFrom = await access.pinDir(dirname(source.value), "write", source.value, basename(source.value));
		if (!pinnedFrom.ok) return pinnedFrom;
		fromPin = pinnedFrom.value;
		const pinnedTo = await access.pinDir(dirname(dest.value), "write", dest.value, basename(dest.value));
		if (!pinnedTo.ok) return pinnedTo;
		toPin = pinnedTo.value;
		const moved = (await fromPin.recheck()) ?? (await toPin.recheck());
		if (moved) return err(moved);
		await fs.rename(fromPin.at(basename(source.value)), toPin.at(basename(dest.value)));
		return ok(undefined);
	} catch (error) {
		const code = osCodeOf(error);
		// Errors about the destination name the destination; the rest name the source.
		const aboutDest = code === "EISDIR" || code === "ENOTEMPTY" || code === "EEXIST" || code === "EINVAL";
		if (code === "ENOENT") {
			const exists = await state.env.fileInfo(source.value, { followSymlinks: false });
			return err(mapFsError(error, exists.ok ? dest.value : source.value));
		}
		return err(mapFsError(error, aboutDest ? dest.value : source.value, { EEXIST: "not_empty" }));
	} finally {
		await fromPin?.close();
		await toPin?.close();
	}
}

export async function remove(
	state: NodeEnvState,
	path: string,
	options: { readonly recursive?: boolean } = {},
): Promise<Result<void, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const denied = await state.access.check(abs.value, "write", false);
	if (denied) return err(denied);
	if (abs.value === "/") return err(fileError("permission_denied", "/", "refusing to remove the root folder"));
	let pin: PinnedDir | undefined;
	try {
		const pinned = await state.access.pinDir(dirname(abs.value), "write", abs.value, basename(abs.value));
		if (!pinned.ok) return pinned;
		pin = pinned.value;
		const target = pin.at(basename(abs.value));
		const stats = await fs.lstat(target);
		const moved = await pin.recheck();
		if (moved) return err(moved);
		if (!stats.isDirectory()) await fs.unlink(target);
		else if (options.recursive === true) await fs.rm(target, { recursive: true });
		else await fs.rmdir(target);
		return ok(undefined);
	} catch (error) {
		return err(mapFsError(error, abs.value, { EEXIST: "not_empty" }));
	} finally {
		await pin?.close();
	}
}

/**
 * `createDir`: the deepest folder that exists is held (open and checked under a policy), and each
 * missing part is made inside the one before it (opened without following links under a policy),
 * so no part swapped for a symlink meanwhile can lead the rest outside.
 */
export async function createDir(
	state: NodeEnvState,
	path: string,
	options: { readonly recursive?: boolean } = {},
): Promise<Result<void, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const absolute = abs.value;
	const denied = await state.access.check(absolute, "write");
	if (denied) return err(denied);
	const missing: string[] = [];
	let base = absolute;
	for (;;) {
		try {
			await fs.lstat(base);
			break;
		} catch (error) {
			if (osCodeOf(error) !== "ENOENT" || base === "/") return err(mapFsError(error, absolute));
			missing.unshift(basename(base));
			base = dirname(base);
		}
	}
	if (missing.length === 0) {
		const info = await state.env.fileInfo(absolute);
		if (info.ok && info.value.kind === "directory") return ok(undefined);
		// Something not a folder (a file, a dangling or looping link): mkdir says it exists, Node's
		// recursive mkdir what following the link runs into.
		const exists = info.ok || options.recursive === false;
		return err(exists ? fileError("already_exists", absolute, undefined, "EEXIST") : info.error);
	}
	if (options.recursive === false && missing.length > 1) {
		return err(fileError("not_found", absolute, undefined, "ENOENT"));
	}
	let pinned = await state.access.pinDir(base, "write", absolute, missing.join("/"));
	for (let index = 0; ; index++) {
		if (!pinned.ok) return pinned;
		const pin = pinned.value;
		try {
			const moved = await pin.recheck();
			if (moved) return err(moved);
			const part = missing[index] as string;
			try {
				await fs.mkdir(pin.at(part));
			} catch (error) {
				// Made meanwhile by someone else: fine if it is a folder (opening it below checks).
				if (osCodeOf(error) !== "EEXIST") throw error;
				const stats = await fs.lstat(pin.at(part));
				if (index === missing.length - 1 && !stats.isDirectory()) {
					return err(fileError("already_exists", absolute, undefined, "EEXIST"));
				}
			}
			if (index === missing.length - 1) return ok(undefined);
			const rest = missing.slice(index + 1).join("/");
			pinned = await state.access.pinDir(pin.at(part), "write", absolute, rest, { noFollow: true });
		} catch (error) {
			return err(mapFsError(error, absolute, { EEXIST: "not_directory" }));
		} finally {
			await pin.close();
		}
	}
}

export async function createTempFile(
	state: NodeEnvState,
	options: { readonly prefix?: string; readonly suffix?: string } = {},
): Promise<Result<string, FileError>> {
	const problem = affixProblem(options.prefix, "prefix") ?? affixProblem(options.suffix, "suffix");
	if (problem) return err(fileError("invalid_argument", state.tempDir, problem));
	// The env's own folder: made without the policy's check (what it creates there is allowed).
	const made = await makeFolder(state.tempDir);
	if (!made.ok) return made;
	for (let attempt = 0; ; attempt++) {
		const path = `${state.tempDir}/${options.prefix ?? "toolsmith-"}${randomBytes(8).toString("hex")}${options.suffix ?? ""}`;
		try {
			const handle = await fs.open(path, "wx", 0o600);
			await handle.close();
			await state.access.allowCreated(path);
			return ok(path);
		} catch (error) {
			if (osCodeOf(error) !== "EEXIST" || attempt >= 10) return err(mapFsError(error, path));
		}
	}
}

export async function createTempDir(
	state: NodeEnvState,
	options: { readonly prefix?: string } = {},
): Promise<Result<string, FileError>> {
	const problem = affixProblem(options.prefix, "prefix");
	if (problem) return err(fileError("invalid_argument", state.tempDir, problem));
	// The env's own folder: made without the policy's check (what it creates there is allowed).
	const made = await makeFolder(state.tempDir);
	if (!made.ok) return made;
	try {
		const created = await fs.mkdtemp(`${state.tempDir}/${options.prefix ?? "toolsmith-"}`);
		await state.access.allowCreated(created);
		return ok(created);
	} catch (error) {
		return err(mapFsError(error, state.tempDir));
	}
}
