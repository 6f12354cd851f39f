/** Object storage behind a small interface: `file://` now, `s3://` next. */
export interface Storage {
  /** Read a whole object. Throws with code ENOENT when missing. */
  read(uri: string): Promise<Uint8Array>;
  /** Write atomically (temp file + rename); replaces an existing object. */
  write(uri: string, data: Uint8Array): Promise<void>;
  /** Create only if absent; returns false when the object already exists. */
  writeExclusive(uri: string, data: Uint8Array): Promise<boolean>;
  exists(uri: string): Promise<boolean>;
  size(uri: string): Promise<number>;
  delete(uri: string): Promise<void>;
  /** Every object under a prefix (recursive). */
  list(prefix: string): Promise<string[]>;
}
