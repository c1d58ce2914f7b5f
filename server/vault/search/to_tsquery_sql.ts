/**
 * Turns parsed text clauses into a PostgreSQL tsquery expression. Every piece of user text travels
 * as a bound parameter; the SQL around it is fixed.
 *
 * Each word or phrase is asked for twice, stemmed (`english`) and exact (`simple`), matching the two
 * halves of the indexed document (migration 0002_notes_index): "retries" finds "retry", and "the"
 * or "useEffect" still match although `english` drops or stems them. A prefix is asked for in
 * `simple` only, where the words are stored unstemmed, so "runn*" finds "running".
 */
import { type RawBuilder, sql } from "kysely";
import type { TextClause } from "./parse_search_query.ts";

/** The tsquery every clause of `include` matches and none of `exclude` does. */
export function tsquerySql(
  include: readonly TextClause[],
  exclude: readonly TextClause[],
): RawBuilder<string> {
  if (include.length === 0) throw new RangeError("a tsquery needs at least one clause to include");
  const parts = [
    ...include.map(clauseSql),
    ...exclude.map((clause) => sql`(!! ${clauseSql(clause)})`),
  ];
  return sql<string>`(${sql.join(parts, sql` && `)})`;
}

function clauseSql(clause: TextClause): RawBuilder<string> {
  switch (clause.type) {
    case "word":
    case "phrase":
      // phraseto_tsquery keeps a word that the parser splits ("snake_case", "v1.2") together.
      return sql`(phraseto_tsquery('english', ${clause.text}) || phraseto_tsquery('simple', ${clause.text}))`;
    case "prefix":
      return sql`to_tsquery('simple', ${prefixQueryText(clause.words)})`;
    case "any":
      return sql`(${sql.join(clause.of.map(clauseSql), sql` || `)})`;
  }
}

/**
 * The words as tsquery text, `'ab' <-> 'cd':*`. The parser let through only letters and digits, and
 * each word is quoted anyway, so no word can be read as an operator.
 */
export function prefixQueryText(words: readonly string[]): string {
  const quoted = words.map((w) => `'${w.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`);
  return `${quoted.join(" <-> ")}:*`;
}

/**
 * The lexemes to highlight, as tsquery text: the stemmed (`english`) forms of what was asked for, or
 * the exact (`simple`) forms and the prefixes. Null when there is none of that kind.
 */
export function highlightLexemesSql(
  include: readonly TextClause[],
  config: "english" | "simple",
): RawBuilder<string> | null {
  const parts: RawBuilder<string>[] = [];
  const walk = (clause: TextClause) => {
    if (clause.type === "any") clause.of.forEach(walk);
    else if (clause.type === "prefix") {
      if (config === "simple") parts.push(sql`to_tsquery('simple', ${prefixQueryText(clause.words)})::text`);
    } else if (config === "english") parts.push(sql`phraseto_tsquery('english', ${clause.text})::text`);
    else parts.push(sql`phraseto_tsquery('simple', ${clause.text})::text`);
  };
  include.forEach(walk);
  return parts.length > 0 ? sql<string>`concat_ws(' ', ${sql.join(parts)})` : null;
}
