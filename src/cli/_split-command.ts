/**
 * A command line given as one string (`--mcp "npx -y some-server --root ./x"`) split into words the
 * way a POSIX shell splits them: blanks separate words; single quotes keep everything literally;
 * double quotes keep blanks, and a backslash in them escapes only `"`, `\`, `$` and `` ` ``; outside
 * quotes a backslash keeps the next character literally. Nothing is expanded: no variables, globs or
 * `~`, and no operators (`|`, `&&`, `>` are plain characters of a word).
 */
export function splitCommandLine(line: string): string[] {
	const words: string[] = [];
	let word = "";
	// A word exists once anything was seen for it, so `''` gives an empty word.
	let started = false;
	let i = 0;
	while (i < line.length) {
		const ch = line[i]!;
		if (ch === " " || ch === "\t" || ch === "\n") {
			if (started) words.push(word);
			word = "";
			started = false;
			i++;
		} else if (ch === "'") {
			const end = line.indexOf("'", i + 1);
			if (end === -1) throw new Error(`unterminated single quote at column ${i + 1}`);
			word += line.slice(i + 1, end);
			started = true;
			i = end + 1;
		} else if (ch === '"') {
			let j = i + 1;
			for (;;) {
				if (j >= line.length) throw new Error(`unterminated double quote at column ${i + 1}`);
				const inner = line[j]!;
				if (inner === '"') break;
				if (inner === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) {
					word += line[j + 1];
					j += 2;
				} else {
					word += inner;
					j++;
				}
			}
			started = true;
			i = j + 1;
		} else if (ch === "\\") {
			if (i + 1 >= line.length) throw new Error("a backslash ends the command: nothing follows it to escape");
			// A backslash before a line break joins the lines, as in a shell.
			if (line[i + 1] !== "\n") word += line[i + 1];
			started = started || line[i + 1] !== "\n";
			i += 2;
		} else {
			word += ch;
			started = true;
			i++;
		}
	}
	if (started) words.push(word);
	return words;
}
