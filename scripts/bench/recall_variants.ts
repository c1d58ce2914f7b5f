/**
 * The parameter variants scripts/bench/recall_offline.ts measures (`--candidates`, `--sweep`, `--pool`):
 * lists of named `Params`, kept apart from the evaluation that runs them.
 */
import type { Params } from "./recall_offline.ts";

/** The ranking methods issue 40 asks to measure, as variants of `base` (`--candidates`). */
export function candidates(base: Params): [string, Params][] {
  const field = (name: string, weight: number): Params => ({
    ...base,
    fields: { ...base.fields, [name]: { ...base.fields[name as keyof typeof base.fields], weight } },
  });
  return [
    ["date window", { ...base, dateWindow: true }],
    ...[0.5, 0.6, 0.65].map((w): [string, Params] => [`zscore k ${w}`, {
      ...base,
      fusion: { ...base.fusion, keyword: w, vector: 1 - w },
    }]),
    ...[0.1, 0.3, 0.6].map((w): [string, Params] => [`date field ${w}`, { ...base, dateField: w }]),
    ...[0, 0.3, 0.6, 1.5].map((w): [string, Params] => [`speaker field ${w}`, field("speaker", w)]),
    ...[0, 0.2, 0.5].map((p): [string, Params] => [`ask penalty ${p}`, { ...base, askPenalty: p }]),
    ...[0.3, 0.5].map((w): [string, Params] => [`context ${w}`, field("context", w)]),
    ...[0.1, 0.2, 0.3, 0.5].flatMap((weight) =>
      [1, 3].map((
        top,
      ): [string, Params] => [`session ${weight} top ${top}`, { ...base, session: { weight, top } }])
    ),
    ...[[3, 5, 0.2], [3, 10, 0.2], [5, 10, 0.1], [5, 10, 0.3], [10, 10, 0.2]].map(([docs, terms, weight]): [
      string,
      Params,
    ] => [`prf ${docs} docs ${terms} terms ${weight}`, {
      ...base,
      prf: { docs: docs!, terms: terms!, weight: weight! },
    }]),
  ];
}

/** The variants `sweep` (recall_offline.ts `--sweep`) measures: one parameter at a time around `CURRENT`. */
export function sweepVariants(CURRENT: Params): [string, Params][] {
  const field = (name: string, weight: number): Params => ({
    ...CURRENT,
    fields: { ...CURRENT.fields, [name]: { ...CURRENT.fields[name as keyof typeof CURRENT.fields], weight } },
  });
  return [
    ...[0.5, 0.9, 1.6, 2.0, 3.0].map((k1): [string, Params] => [`k1 ${k1}`, { ...CURRENT, k1 }]),
    ...[0.2, 0.4, 0.6, 0.9].map((b): [string, Params] => [`b ${b}`, { ...CURRENT, b }]),
    ...[0.3, 0.4, 0.6, 0.8].map((w): [string, Params] => [`context ${w}`, field("context", w)]),
    ...[0, 0.1, 0.5].map((w): [string, Params] => [`tags ${w}`, field("tags", w)]),
    ...[0, 0.2, 0.4, 0.5].map((lend): [string, Params] => [`lend ${lend}`, { ...CURRENT, lend }]),
    ...[1, 3].map((radius): [string, Params] => [`radius ${radius}`, { ...CURRENT, radius }]),
    ...[0.5, 0.7, 0.8].map((w): [string, Params] => [`linear k ${w}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, keyword: w, vector: 1 - w },
    }]),
    ...[0.3, 0.85, 1.2, 1.5].map((expansion): [string, Params] => [`expansion ${expansion}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, expansion },
    }]),
    ...[0.2, 0.3, 0.5].map((vectorLend): [string, Params] => [`vector lend ${vectorLend}`, {
      ...CURRENT,
      vectorLend,
    }]),
    ...[0.1, 0.3].map((floor): [string, Params] => [`floor ${floor}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, floor },
    }]),
    ...[0.5, 0.6, 0.7, 0.8].map((w): [string, Params] => [`zscore k ${w}`, {
      ...CURRENT,
      fusion: { ...CURRENT.fusion, kind: "zscore", keyword: w, vector: 1 - w },
    }]),
  ];
}

/** First-stage candidate-recall variants of `base` (`--pool`). */
export function poolCandidates(base: Params): [string, Params][] {
  return [
    ...[0.5, 0.7, 0.85, 1].map((w): [string, Params] => [`answer lend ${w}`, { ...base, answerLend: w }]),
    ...[1, 1 / 1.1, 1 / 1.2, 1 / 1.3, 1 / 1.7, 1 / 2, 1 / 3].map((f): [string, Params] => [
      `speaker factor ${f.toFixed(2)}`,
      { ...base, speakerFactor: f },
    ]),
    ...([
      [0.5, 1, false, 0],
      [0, 1, false, 0],
    ] as const).map(([content, speaker, strip, prior]): [string, Params] => [
      `speaker route content ${content} speaker ${speaker}${strip ? " strip" : ""}${
        prior ? ` prior ${prior}` : ""
      }`,
      { ...base, speakerRoute: { content, speaker, strip, prior }, speakerFactor: 1 },
    ]),
    ["fill cosine", { ...base, fillCosine: true }],
    ...[50, 80].map((n): [string, Params] => [`keyword ${n} + fill cosine`, {
      ...base,
      keywordFetch: n,
      fillCosine: true,
    }]),
    ...[[5, 0.5, 1], [10, 0.5, 1], [10, 0.7, 1], [10, 0.3, 1], [5, 0.5, 2], [20, 0.5, 1]].map((
      [top, weight, radius],
    ): [string, Params] => [`neighbours top ${top} × ${weight} r ${radius}`, {
      ...base,
      neighbourExpand: { top: top!, weight: weight!, radius: radius! },
    }]),
    ...[2, 3, 5].map((n): [string, Params] => [`session cap ${n}`, { ...base, sessionCap: n }]),
    ...[3, 5].map((n): [string, Params] => [`session cap ${n}, keyword 50`, {
      ...base,
      sessionCap: n,
      keywordFetch: 50,
    }]),
  ];
}
