/** `text` parsed as YAML (the `yaml` package's parse), or its copy kept from an earlier parse of the same text. */
export declare function parseYamlKept(text: string): unknown;
