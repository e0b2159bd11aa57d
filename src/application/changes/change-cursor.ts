import { InvalidInput } from '../../domain/errors';

/**
 * A cursor is opaque to clients: base64url of `v1.<directory id>.<seq>`. The directory id makes a
 * cursor from another directory (a restored copy, a test instance) an error rather than a silent
 * jump; the version lets the format change without old cursors being misread.
 */
const SHAPE = /^v1\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(0|[1-9]\d{0,15})$/;

export interface ChangeCursor {
  directoryId: string;
  seq: number;
}

export function encodeCursor({ directoryId, seq }: ChangeCursor): string {
  return Buffer.from(`v1.${directoryId}.${seq}`, 'utf8').toString('base64url');
}

/** Throws InvalidInput for anything encodeCursor did not write. */
export function decodeCursor(text: string): ChangeCursor {
  const invalid = new InvalidInput('after is not a cursor of this feed: use the cursor a response gave you');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) throw invalid;
  const match = SHAPE.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (match === null || encodeCursor({ directoryId: match[1], seq: Number(match[2]) }) !== text)
    throw invalid;
  const seq = Number(match[2]);
  if (!Number.isSafeInteger(seq)) throw invalid;
  return { directoryId: match[1], seq };
}
