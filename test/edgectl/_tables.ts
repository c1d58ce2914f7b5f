/** Shared by edgectl's black-box tests: tables compared as text with the AGE column masked. */
import assert from "node:assert/strict";

/** The table with each row's last column (AGE, checked to look like one) replaced by `<age>`. */
export function maskAge(table: string): string {
  return table.split("\n").map((line, i) => {
    if (i === 0 || line === "") return line;
    const age = /\S+$/.exec(line)![0];
    assert.match(age, /^(\d+s|\d+m(\d+s)?)$/, `AGE in ${JSON.stringify(line)}`);
    return line.slice(0, -age.length) + "<age>";
  }).join("\n");
}
