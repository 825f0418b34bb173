import { describe, expect, it } from "vitest";
import { commandMayWrite } from "../../../src/harness/_shell-effects.js";

describe("commandMayWrite", () => {
	it.each([
		'grep -n "chalk\\." src/a.ts | head -30',
		'find packages -name "*.ts" -type f',
		"cd packages/x && grep -A 5 'foo > bar' a.ts 2>&1 | tail -3",
		"ls -la ~/.pi/agent/themes/",
		"sed -n '1,20p' a.ts",
		"git status && git diff --stat",
		"cat a.txt > /dev/null",
		"awk '/x/{print NR\": \"$0}' a.ts | head -40",
		"echo $(date +%Y)",
		"printf 'out\\n'; echo 'err' >&2; exit 3",
	])("read-only: %s", (command) => {
		expect(commandMayWrite(command)).toBe(false);
	});

	it.each([
		"sed -i '' 's/a/b/g' a.ts",
		"npm run build 2>&1 | tail -3",
		"cat > /tmp/x.py << 'EOF'\nprint(1)\nEOF",
		"echo hi > out.txt",
		"echo hi &> out.txt",
		"git commit -m x",
		"cp a b",
		"find . -name '*.tmp' -delete",
		"python3 script.py",
		"rm -rf dist",
		"grep x a | tee out.txt",
		'echo "unterminated',
		"ls $(touch x)",
	])("may write: %s", (command) => {
		expect(commandMayWrite(command)).toBe(true);
	});
});
