/** Types of src/cli/compiled.js (plain JavaScript, imported by bin/conform.js). */
export declare const ENTRIES: Record<'main' | 'reference-child', string>;
/** The key of the sources under `root` (the package by default) as they are now. */
export declare function sourcesKey(root?: string): string;
/** The URL of an entry's compiled module for the current sources; undefined when it cannot be built. */
export declare function compiledEntry(name: keyof typeof ENTRIES): Promise<string | undefined>;
