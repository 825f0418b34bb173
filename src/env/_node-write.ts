/**
 * The writing operations of NodeExecutionEnv (Node only): `writeFile` (atomic: a temp file in the
 * same folder, then a rename; a hard-linked file is overwritten in place) and `appendFile`. The
 * folder is reached through the env's path access (held open and checked under a policy), so
 * there is one code path whether or not a policy confines the env.
 */
import { randomBytes } from "node:crypto";
import { promises as fs, constants as fsConstants } from "node:fs";
import type { SignalOptions } from "../contract/env.js";
import { err, type FileError, ok, type Result } from "../contract/result.js";
import {
	appendOpenError,
	makeParents,
	mapFsError,
	notRegular,
	specialFileRefusal,
	syncFolder,
	writeTarget,
} from "./_node-fs.js";
import { type Checked, withOpened } from "./_node-path-policy.js";
import { absoluteIn, type NodeEnvState } from "./_node-state.js";
import { fileError, osCodeOf } from "./errors.js";
import { basename, dirname } from "./path.js";

/** `path` made absolute and checked for writing `data`: the path and what the check handed on. */
async function writable(
	state: NodeEnvState,
	path: string,
	data: string | Uint8Array,
	options: SignalOptions,
): Promise<Result<{ readonly absolute: string; readonly checked: Checked }, FileError>> {
	const abs = absoluteIn(state, path);
	if (!abs.ok) return abs;
	const allowed = await state.access.resolve(abs.value, "write");
	if (!allowed.ok) return allowed;
	if (!(typeof data === "string" || data instanceof Uint8Array)) {
		return err(fileError("invalid_argument", abs.value, "data must be a string or a Uint8Array"));
	}
	if (options.signal?.aborted) return err(fileError("aborted", abs.value));
	const special = await specialFileRefusal(abs.value);
	if (special) return err(special);
	return ok({ absolute: abs.value, checked: allowed.value });
}

export async function writeFile(
	state: NodeEnvState,
	path: string,
	data: string | Uint8Array,
	options: SignalOptions = {},
): Promise<Result<void, FileError>> {
	const checked = await writable(state, path, data, options);
	if (!checked.ok) return checked;
	const { absolute } = checked.value;
	const target = await writeTarget(absolute);
	if (!target.ok) return target;
	let mode: number | undefined;
	try {
		const stats = await fs.stat(target.value);
		if (stats.isDirectory()) return err(fileError("is_directory", absolute));
		if (!stats.isFile()) return err(notRegular(absolute, stats));
		mode = stats.mode & 0o7777;
		// The rename below would replace even a read-only file; honor its bits like a plain write.
		await fs.access(target.value, fsConstants.W_OK);
		// A rename would give this name a new inode and cut it off from its other hard links.
		if (stats.nlink > 1) return await writeInPlace(state, target.value, absolute, data, options, checked.value.checked);
	} catch (error) {
		if (osCodeOf(error) !== "ENOENT") return err(mapFsError(error, absolute));
		const made = await makeParents(target.value, absolute);
		if (!made.ok) return made;
	}
	const name = basename(target.value);
	// Under a policy, the folder is held open and checked where it actually is; the temp file is
	// made and renamed through it, so a folder swapped for a symlink meanwhile changes nothing.
	const pinned = await state.access.pinDir(dirname(target.value), "write", absolute, name);
	if (!pinned.ok) return pinned;
	const pin = pinned.value;
	// Same folder as the target, so the rename never crosses a file system. Short enough that a
	// long file name cannot push it past the 255-byte name limit.
	const temp = pin.at(`.${name.slice(0, 60)}.${randomBytes(6).toString("hex")}.tmp`);
	let handle: fs.FileHandle | undefined;
	try {
		const before = await pin.recheck();
		if (before) return err(before);
		handle = await fs.open(temp, "wx", mode ?? 0o666);
		await handle.writeFile(data);
		// open() applied the umask; chmod does not, so the file keeps exactly its old bits.
		if (mode !== undefined) await handle.chmod(mode);
		if (state.durable) await handle.sync();
		await handle.close();
		handle = undefined;
		if (options.signal?.aborted) throw Object.assign(new Error("aborted"), { name: "AbortError" });
		const moved = await pin.recheck();
		if (moved) {
			await fs.rm(temp, { force: true }).catch(() => undefined);
			return err(moved);
		}
		await fs.rename(temp, pin.at(name));
	} catch (error) {
		await handle?.close().catch(() => undefined);
		await fs.rm(temp, { force: true }).catch(() => undefined);
		return err(mapFsError(error, absolute));
	} finally {
		await pin.close();
	}
	if (state.durable) await syncFolder(dirname(target.value));
	return ok(undefined);
}

/**
 * Overwrite a hard-linked file in place (same inode, so every name sees the new content). Not
 * atomic: a crash midway leaves a mix. To narrow that window the new content is written over the
 * old from offset 0 and the file is cut to length only afterwards (never emptied first), and with
 * `durable` it is flushed before returning. Opened without blocking and checked again after
 * opening, so a path swapped for a FIFO or a device in between is refused, never waited on.
 */
async function writeInPlace(
	state: NodeEnvState,
	target: string,
	shown: string,
	data: string | Uint8Array,
	options: SignalOptions,
	checked: Checked,
): Promise<Result<void, FileError>> {
	const flags = fsConstants.O_WRONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW;
	try {
		return await withOpened(
			state.access,
			() => fs.open(target, flags),
			"write",
			shown,
			checked,
			async (handle) => {
				const stats = await handle.stat();
				if (!stats.isFile()) return err(notRegular(shown, stats));
				if (options.signal?.aborted) return err(fileError("aborted", shown));
				const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
				let written = 0;
				while (written < bytes.byteLength) {
					const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written, written);
					written += bytesWritten;
				}
				await handle.truncate(bytes.byteLength);
				if (state.durable) await handle.sync();
				return ok(undefined);
			},
		);
	} catch (error) {
		return err(mapFsError(error, shown));
	}
}

export async function appendFile(
	state: NodeEnvState,
	path: string,
	data: string | Uint8Array,
): Promise<Result<void, FileError>> {
	const checked = await writable(state, path, data, {});
	if (!checked.ok) return checked;
	const { absolute } = checked.value;
	const target = await state.access.appendTarget(absolute);
	if (!target.ok) return target;
	const first = await appendAt(state, target.value, absolute, data, checked.value.checked);
	if (first.ok || first.error.code !== "not_found") return first;
	const made = await makeParents(target.value, absolute);
	if (!made.ok) return made;
	return appendAt(state, target.value, absolute, data, checked.value.checked);
}

/**
 * Append to the regular file `target` (created when missing) without ever blocking: opened
 * non-blocking through its folder and checked again once open, so a path swapped for a FIFO or a
 * device after the metadata check is refused rather than waited on.
 */
async function appendAt(
	state: NodeEnvState,
	target: string,
	shown: string,
	data: string | Uint8Array,
	checked: Checked,
): Promise<Result<void, FileError>> {
	const name = basename(target);
	const pinned = await state.access.pinDir(dirname(target), "write", shown, name);
	if (!pinned.ok) return pinned;
	const pin = pinned.value;
	// The access adds O_NOFOLLOW where the name was resolved already (a symlink put there since is
	// refused); O_NONBLOCK: a FIFO put there opens at once instead of waiting for a reader.
	const flags =
		fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | fsConstants.O_NONBLOCK | state.access.noFollow;
	const open = async (): Promise<Result<fs.FileHandle, FileError>> => {
		try {
			return ok(await fs.open(pin.at(name), flags, 0o666));
		} catch (error) {
			return err(await appendOpenError(error, pin.at(name), shown));
		}
	};
	try {
		const before = await pin.recheck();
		if (before) return err(before);
		return await withOpened(state.access, open, "write", shown, checked, async (handle) => {
			const stats = await handle.stat();
			if (!stats.isFile()) return err(notRegular(shown, stats));
			await handle.appendFile(data);
			return ok(undefined);
		});
	} catch (error) {
		return err(mapFsError(error, shown));
	} finally {
		await pin.close();
	}
}
