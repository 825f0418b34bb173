/**
 * What `@mariozechner/pi-ai` (and `@earendil-works/pi-ai`, with `/compat`) resolve to inside
 * extensions: `Type` and `StringEnum` for tool parameters, and pi's model calls answered for a host
 * that has no model. toolsmith runs tools headless, without a model or provider keys: `complete`,
 * `completeSimple`, `stream` and `streamSimple` fail with an error that says so (the stream's
 * iteration throws it, its `result()` rejects with it), each call raising a `W_UNSUPPORTED_API`
 * warning once per extension; `getModel` finds no model and `getModels`/`getProviders` list none.
 */
import { callingExtension, reportCompat } from "./state.js";

export { StringEnum, Type } from "../../contract/schema.js";

/** The error every model call of a headless toolsmith gives. */
export class NoModelError extends Error {
	override readonly name = "NoModelError";
	constructor(member: string) {
		super(
			`No model is available in toolsmith's headless runtime: ${member}() from pi-ai cannot call a model here (toolsmith runs tools without a model or provider keys). Run this extension in the pi coding agent for model calls.`,
		);
	}
}

/** Raise the warning for a model call, once per extension and member; the error to fail with. */
function noModel(member: string): NoModelError {
	const path = callingExtension() ?? "(an extension)";
	reportCompat(`pi-ai:${member}`, {
		severity: "warning",
		code: "W_UNSUPPORTED_API",
		message: `${path} called ${member}() from pi-ai, which needs a model; toolsmith's headless runtime has none, so the call fails.`,
		path,
	});
	return new NoModelError(member);
}

/** pi's `complete(model, context, options)`: rejects, there is no model. */
export function complete(_model?: unknown, _context?: unknown, _options?: unknown): Promise<never> {
	return Promise.reject(noModel("complete"));
}

/** pi's `completeSimple(model, context, options)`: rejects, there is no model. */
export function completeSimple(_model?: unknown, _context?: unknown, _options?: unknown): Promise<never> {
	return Promise.reject(noModel("completeSimple"));
}

/** A stream of a call that cannot be made: iterating it throws the error, `result()` rejects with it. */
export interface NoModelStream extends AsyncIterable<never> {
	result(): Promise<never>;
}

function failedStream(error: NoModelError): NoModelStream {
	return {
		[Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
		result: () => Promise.reject(error),
	};
}

/** pi's `stream(model, context, options)`: a stream that fails at once, there is no model. */
export function stream(_model?: unknown, _context?: unknown, _options?: unknown): NoModelStream {
	return failedStream(noModel("stream"));
}

/** pi's `streamSimple(model, context, options)`: a stream that fails at once, there is no model. */
export function streamSimple(_model?: unknown, _context?: unknown, _options?: unknown): NoModelStream {
	return failedStream(noModel("streamSimple"));
}

/** pi's `getModel(provider, id)`: no model is known headless. */
export function getModel(_provider?: string, _modelId?: string): undefined {
	return undefined;
}

/** pi's `getModels(provider)`: none. */
export function getModels(_provider?: string): never[] {
	return [];
}

/** pi's `getProviders()`: none. */
export function getProviders(): never[] {
	return [];
}
