// Cursor pagination for /v1 lists (`page_size` + `cursor`, newest first). The cursor is opaque to clients;
// inside it is the row id the next page starts below, so inserts and deletes never shift a page.
import { previewErrors } from '../errors.js';
import { PREVIEW_PAGE_DEFAULT } from '../schemas/preview.js';

export interface PageRequest { beforeId: number | null; limit: number }

const PREFIX = 'cur_';

export function pageRequest(query: { page_size?: number; cursor?: string }): PageRequest {
  const limit = query.page_size ?? PREVIEW_PAGE_DEFAULT;
  if (query.cursor === undefined || query.cursor === '') return { beforeId: null, limit };
  const decoded = query.cursor.startsWith(PREFIX) ? Buffer.from(query.cursor.slice(PREFIX.length), 'base64url').toString('utf8') : '';
  if (!/^\d{1,15}$/.test(decoded)) throw previewErrors.parameterInvalid('cursor', 'The cursor parameter is not a cursor this API returned.');
  return { beforeId: Number(decoded), limit };
}

/** Asks the repository for one row more than the page so `has_more` needs no count query. */
export function fetchPage<T extends { id: number }, V>(req: PageRequest, fetch: (r: PageRequest) => T[], view: (row: T) => V) {
  const { page, more } = pageOf(req, fetch({ beforeId: req.beforeId, limit: req.limit + 1 }));
  return { data: page.map(view), ...more };
}

/** fetchPage for a repository on the SqlDb port (its rows, and maybe each row's view, come as promises). */
export async function fetchPageAsync<T extends { id: number }, V>(req: PageRequest, fetch: (r: PageRequest) => Promise<T[]>, view: (row: T) => V | Promise<V>) {
  const { page, more } = pageOf(req, await fetch({ beforeId: req.beforeId, limit: req.limit + 1 }));
  const data: V[] = [];
  for (const row of page) data.push(await view(row));
  return { data, ...more };
}

function pageOf<T extends { id: number }>(req: PageRequest, rows: T[]) {
  const page = rows.slice(0, req.limit);
  const hasMore = rows.length > req.limit;
  return { page, more: { has_more: hasMore, next_cursor: hasMore ? PREFIX + Buffer.from(String(page.at(-1)!.id)).toString('base64url') : null } };
}
