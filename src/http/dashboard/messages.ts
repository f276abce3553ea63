// Validation messages as a person reads them on a form. The services' messages are written for the API, where
// naming the field (`The voice_webhook_url field must ...`) and the refusal code help a developer; beside an input
// whose label already names it, they become plain sentences that start with a capital and end with a full stop.
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function inWords(key: string, message: string): string {
  const k = escaped(key);
  let m = message
    .replace(new RegExp(`^The ${k} field `), '')
    .replace(new RegExp(`^The ${k} is refused \\([a-z_]+\\): `), 'This address cannot be used: ');
  m = (m.charAt(0).toUpperCase() + m.slice(1))
    .replace(/^Must not be greater than (\d+) characters/, 'Use at most $1 characters')
    .replace(/^Must be a valid http or https URL/, 'Enter an address that starts with https:// (or http://)');
  return /[.!?]$/.test(m) ? m : `${m}.`;
}
