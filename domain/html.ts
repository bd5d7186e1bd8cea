// Text into HTML: the five characters that could end a text or an attribute value, as entities.

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` (made a string) safe in an element's text and in a quoted attribute value. */
export function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
