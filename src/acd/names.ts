/**
 * Queue and agent names and disposition codes: 1 to 64 characters on one line, not blank. The API's schemas say the
 * same with a pattern; markup and the dashboard check it here.
 */
export function isOneLineName(value: string): boolean {
  return value.length >= 1 && value.length <= 64 && value.trim() !== '' && !/[\r\n]/.test(value);
}
