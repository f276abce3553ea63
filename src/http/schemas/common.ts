import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * A nullable variant that validates as one JSON-Schema type list, so errors name the real constraint; an `enum`
 * lists null too (it is checked apart from the type).
 */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type as string, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) });

/** A string enum that validates as plain `enum` (clear error messages) yet types as the literal union. */
export const StringEnum = <T extends string>(values: readonly T[], opts: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...opts });

export const HttpUrl = (description: string) => Type.String({ format: 'http-url', maxLength: 2048, description });
export const SingleLine = (maxLength: number, description: string) =>
  Type.String({ format: 'single-line', maxLength, description });
/** A name under the one name rule (src/names; docs/security.md, "Names"), trimmed as it is read. */
export const Name = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, format: 'name', 'x-trim': true, description: `${description} 1 to ${maxLength} characters of visible text on one line: no control, bidirectional or invisible characters, no / or \\, not only dots; spaces around it are dropped.` });
/** Free text (notes): line breaks allowed, no other control, bidirectional or invisible characters. */
export const Text = (maxLength: number, description: string) =>
  Type.String({ maxLength, format: 'text', description: `${description} Up to ${maxLength} characters; line breaks allowed, no other control, bidirectional or invisible characters.` });

export const LiveError = Type.Object({ error: Type.String(), code: Type.Optional(Type.String()) }, { $id: 'LiveError' });
export const LiveValidationError = Type.Object(
  { message: Type.String(), errors: Type.Record(Type.String(), Type.Array(Type.String())) },
  { $id: 'LiveValidationError' },
);
export const LiveMessage = Type.Object({ message: Type.String() }, { $id: 'LiveMessage' });
