/** What a validation found, by field: the live API's 422 `errors`, the dashboard's form messages. */
export type FieldErrors = Record<string, string[]>;
