/**
 * How the SSH env reads a command's stderr: the wrapper's markers (pid, exit code) come out
 * wherever they fall in the stream, even split across chunks, and ssh's notice of a refused
 * session is dropped from its start; everything else reaches the caller byte for byte.
 */
import { describe, expect, it } from "vitest";
import { MarkerFilter } from "../../../src/env/node-ssh/exec.js";

function run(chunks: readonly string[]): { text: string; markers: string[] } {
	const markers: string[] = [];
	const filter = new MarkerFilter("n0nce", (what, value) => markers.push(`${what}=${value}`));
	const out = chunks.map((chunk) => filter.push(Buffer.from(chunk, "latin1")).toString("latin1"));
	out.push(filter.flush().toString("latin1"));
	return { text: out.join(""), markers };
}

const pid = "\x1en0nce:pid:42\n";
const exit = "\x1en0nce:exit:3\n";

describe("the stderr of a remote command", () => {
	it("loses its markers and keeps the rest", () => {
		expect(run([`before${pid}middle${exit}after`])).toEqual({
			text: "beforemiddleafter",
			markers: ["pid=42", "exit=3"],
		});
	});

	it("finds markers split anywhere across chunks", () => {
		const whole = `a${pid}b${exit}c`;
		for (let cut = 1; cut < whole.length; cut++) {
			expect(run([whole.slice(0, cut), whole.slice(cut)])).toEqual({ text: "abc", markers: ["pid=42", "exit=3"] });
		}
		expect(run([...whole])).toEqual({ text: "abc", markers: ["pid=42", "exit=3"] });
	});

	it("keeps what only looks like the start of a marker, and another nonce's markers", () => {
		expect(run(["x\x1en0n", "ope\n"])).toEqual({ text: "x\x1en0nope\n", markers: [] });
		expect(run(["\x1eother:pid:1\n"])).toEqual({ text: "\x1eother:pid:1\n", markers: [] });
		expect(run(["tail\x1en0"])).toEqual({ text: "tail\x1en0", markers: [] });
	});

	it("drops ssh's notice of a refused session from its start, however it is cut", () => {
		const notice = "mux_client_request_session: session request failed: Session open refused by peer\n";
		const whole = `${notice}err${pid}`;
		for (let cut = 1; cut < whole.length; cut += 7) {
			expect(run([whole.slice(0, cut), whole.slice(cut)])).toEqual({ text: "err", markers: ["pid=42"] });
		}
	});

	it("keeps the notice's words anywhere but at the start", () => {
		const said = "mux_client_request_session: from the command\n";
		expect(run([`x${said}`]).text).toBe(`x${said}`);
		expect(run(["mux_", "other"]).text).toBe("mux_other");
		expect(run(["mux_client_request_session: no newline"]).text).toBe("mux_client_request_session: no newline");
	});
});
