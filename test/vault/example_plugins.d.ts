// Types of the example plugins' exports that test/vault/example_plugins_test.ts imports.
export function countWords(text: string): { words: number; characters: number };
export function parseTable(source: string, delimiter?: string): string[][];
export function formatTable(rows: string[][], delimiter?: string): string;
