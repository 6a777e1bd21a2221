/** Escapes a value for HTML text and attributes. */
export const escapeHtml = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
