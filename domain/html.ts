// Text into HTML: the five characters that could end a text or an attribute value, as entities; and the
// opening every page of the service shares (no referrer leaves it: sign links carry their secret in the path).

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` (made a string) safe in an element's text and in a quoted attribute value. */
export function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A page's first lines up to its title: doctype, language, charset, viewport, no referrer. */
export const PAGE_HEAD = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">`;
