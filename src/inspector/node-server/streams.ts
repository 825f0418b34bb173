/**
 * The clients of the inspector's event stream (Server-Sent Events): at most `maxEventStreams` at
 * once, a new one past the cap refused with 503; each with a bound on what it leaves unread. A
 * client that falls behind is sent a last `dropped` event saying why and its stream ends; the page
 * then opens a new one, which starts with the whole state (Node only).
 */
import type { ServerResponse } from "node:http";
import { formatBytes, RequestError, UnsentBound } from "../../mcp/node-request.js";
import type { InspectorEvent } from "../protocol.js";
import { SECURITY_HEADERS } from "./http.js";

/** Default cap on the event streams open at once. */
export const DEFAULT_MAX_EVENT_STREAMS = 32;
/** Default bound on what one client may leave unread beyond its largest event: 1 MiB. */
export const DEFAULT_MAX_UNSENT_EVENT_BYTES = 1024 * 1024;
/** How long a dropped client has to read its last event before its connection is closed. */
const FAREWELL_MS = 30_000;

/** `event` as one frame of the stream; a named event (`event: dropped`) when `named`. */
export function eventFrame(event: InspectorEvent, named = false): string {
	return `${named ? `event: ${event.type}\n` : ""}data: ${JSON.stringify(event)}\n\n`;
}

/** One client of the stream. */
class EventClient {
	readonly #bound: UnsentBound;
	#open = true;

	constructor(
		readonly res: ServerResponse,
		maxUnsentBytes: number,
		private readonly left: (client: EventClient) => void,
	) {
		this.#bound = new UnsentBound(res, maxUnsentBytes);
		res.once("close", () => this.#leave());
	}

	/** Queues `frame`; false when the client is gone, or is dropped now for falling behind. */
	send(frame: string): boolean {
		if (!this.#open) return false;
		if (this.#bound.admits(Buffer.byteLength(frame))) {
			this.res.write(frame);
			return true;
		}
		const max = formatBytes(this.#bound.maxBytes);
		this.end(
			eventFrame(
				{
					type: "dropped",
					reason: "behind",
					message: `This page fell more than ${max} behind the inspector's live events (${this.#bound.unsent} bytes were still waiting for it), so the server stopped sending them. The page connects again and reloads the state.`,
				},
				true,
			),
		);
		return false;
	}

	/** Ends the stream (with `last` as its last frame); a client that does not read it is cut off after a while. */
	end(last?: string): void {
		if (!this.#open) return;
		this.#leave();
		this.res.end(last);
		if (this.res.writableFinished) return;
		const timer = setTimeout(() => this.res.destroy(), FAREWELL_MS);
		timer.unref();
		this.res.once("close", () => clearTimeout(timer));
	}

	#leave(): void {
		if (!this.#open) return;
		this.#open = false;
		this.left(this);
	}
}

/** The open event streams, within their cap. */
export class EventStreams {
	readonly #clients = new Set<EventClient>();

	constructor(
		readonly maxClients: number,
		readonly maxUnsentBytes: number,
	) {}

	/** Clients following the events now (a dropped one no longer counts). */
	get size(): number {
		return this.#clients.size;
	}

	/**
	 * Answers `res` as an event stream starting with the event `first` makes (made only for a client
	 * let in). Throws a `RequestError` (503, with `Retry-After`) when `maxClients` streams are open.
	 */
	open(res: ServerResponse, first: () => InspectorEvent): void {
		if (this.#clients.size >= this.maxClients) {
			throw new RequestError(
				503,
				`Too many event streams: this inspector serves at most ${this.maxClients} at once, and all are open. Close the inspector pages (or other clients of /api/events) you no longer use; the page tries again by itself.`,
				{ "retry-after": "5" },
			);
		}
		res.writeHead(200, {
			...SECURITY_HEADERS,
			"content-type": "text/event-stream; charset=utf-8",
			connection: "keep-alive",
		});
		const client = new EventClient(res, this.maxUnsentBytes, (gone) => this.#clients.delete(gone));
		this.#clients.add(client);
		client.send(`retry: 1000\n${eventFrame(first())}`);
	}

	/** Sends `frame` to every client; a client behind is dropped instead. */
	broadcast(frame: string): void {
		for (const client of this.#clients) client.send(frame);
	}

	/** Ends every stream (the server is closing). */
	endAll(): void {
		for (const client of [...this.#clients]) client.end();
	}
}
