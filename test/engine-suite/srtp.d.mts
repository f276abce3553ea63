export declare const MASTER_KEY_BYTES: number;
export declare const MASTER_SALT_BYTES: number;
export declare function deriveKey(masterKey: Buffer, masterSalt: Buffer, label: number, length: number): Buffer;
export declare function newInlineKey(): string;
export declare class SrtpStream {
  constructor(inline: string);
  readonly encryptionKey: Buffer;
  readonly authKey: Buffer;
  readonly saltKey: Buffer;
  roc: number;
  lastSeq: number | null;
  protect(rtp: Buffer): Buffer;
  unprotect(srtp: Buffer): Buffer | null;
}
