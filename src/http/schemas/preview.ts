// Shapes shared by every /v1 route: the error envelope, list pages and their query parameters.
import { Type, type TSchema } from '@sinclair/typebox';

export const PREVIEW_PAGE_DEFAULT = 50;
export const PREVIEW_PAGE_MAX = 100;

export const PreviewErrorBody = Type.Object({
  error: Type.Object({
    type: Type.String({ description: 'invalid_request_error, authentication_error, rate_limit_error or api_error.' }),
    code: Type.String({ description: 'Stable, machine-readable.' }),
    message: Type.String(),
    param: Type.Optional(Type.String({ description: 'The offending parameter, on validation errors.' })),
    status: Type.Integer(),
    request_id: Type.String(),
  }),
});

export const PageQuery = Type.Object({
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: PREVIEW_PAGE_MAX, description: `Items per page, default ${PREVIEW_PAGE_DEFAULT}, maximum ${PREVIEW_PAGE_MAX}.` })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The next_cursor of the previous page.' })),
}, { additionalProperties: false });

export const Page = <T extends TSchema>(item: T) => Type.Object({
  data: Type.Array(item),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
});

export const SidParams = Type.Object({ sid: Type.String() });

const envelope = { content: { 'application/json': { schema: PreviewErrorBody } } };
/** The error responses every authenticated /v1 route can give. */
export const previewErrorResponses = (...statuses: number[]) =>
  Object.fromEntries([400, 401, 429, ...statuses].map((s) => [s, { description: 'Error envelope', ...envelope }]));
