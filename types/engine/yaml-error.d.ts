/** A YAML parse error in one line: what the parser says, where, and the line it stopped at. */
export declare function yamlProblem(err: unknown, text: string): string;
