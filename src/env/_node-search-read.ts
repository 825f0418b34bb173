/**
 * How the Node env reads the files of a search (Node only). The walker picked each file from its
 * folder's listing, where it was a regular file; this opens it without following a symlink and
 * without waiting (a FIFO swapped in since is not waited on), checks it is still a regular file,
 * and reads it in one go. Callbacks rather than `FileHandle`s: a search reads thousands of small
 * files, and each promise-based step costs more than the read itself.
 */
import { close, constants, fstat, open, read } from "node:fs";
import { type FileHandle, open as openHandle } from "node:fs/promises";
import type { LargeSearchFile } from "./grep.js";

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0);

/** Files larger than this are read in pieces (`SEARCH_PIECE`) when the search gets to them. */
export const LARGE_SEARCH_FILE = 256 * 1024;

/** The size of those pieces (smaller ones measured slower, larger ones slower and more memory). */
const SEARCH_PIECE = 64 * 1024;

/** A large file read in pieces (opened the same careful way); a failed read ends it early. */
export function largeSearchFile(path: string): LargeSearchFile {
	return {
		async *chunks() {
			let handle: FileHandle;
			try {
				handle = await openHandle(path, FLAGS);
			} catch {
				return;
			}
			const stream = handle.createReadStream({ highWaterMark: SEARCH_PIECE });
			try {
				for await (const chunk of stream) yield chunk as Buffer;
			} catch {
				// unreadable since it was listed: what was read is all there is
			} finally {
				stream.destroy();
			}
		},
	};
}

/**
 * The bytes of the regular file at `path` (a large one as `largeSearchFile`), or undefined when it
 * is not one or cannot be read.
 */
export function readSearchFile(path: string): Promise<Uint8Array | LargeSearchFile | undefined> {
	return new Promise((resolve) => {
		open(path, FLAGS, (openError, fd) => {
			if (openError) return resolve(undefined);
			const finish = (bytes: Uint8Array | LargeSearchFile | undefined) => {
				close(fd, () => {});
				resolve(bytes);
			};
			fstat(fd, (statError, stats) => {
				if (statError || !stats.isFile()) return finish(undefined);
				if (stats.size > LARGE_SEARCH_FILE) return finish(largeSearchFile(path));
				// One byte more than its size, so a file that grew meanwhile is read to its end too.
				let buffer = Buffer.allocUnsafe(stats.size + 1);
				let filled = 0;
				const next = () => {
					if (filled === buffer.length) {
						const grown = Buffer.allocUnsafe(buffer.length * 2);
						buffer.copy(grown, 0, 0, filled);
						buffer = grown;
					}
					read(fd, buffer, filled, buffer.length - filled, filled, (readError, bytesRead) => {
						if (readError) return finish(undefined);
						if (bytesRead === 0) return finish(buffer.subarray(0, filled));
						filled += bytesRead;
						next();
					});
				};
				next();
			});
		});
	});
}
