/** Column names of a file's fields whose field ids are wanted; undefined when a field has no id (parquet-columns.mjs). */
export declare function columnsForFieldIds(fields: readonly { name: string; metadata: Map<string, string> }[], fieldIds: ReadonlySet<number>): string[] | undefined;
