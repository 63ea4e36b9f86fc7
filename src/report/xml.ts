/**
 * Escapes text for XML 1.0 content and attribute values. Characters XML 1.0
 * cannot carry at all (most control characters, lone surrogates, U+FFFE and
 * U+FFFF) are written as `\uXXXX`, so hostile output never makes the
 * document unreadable. In attributes, line breaks and tabs are kept as
 * character references.
 */
export function escapeXml(text: string, attribute = false): string {
  const escaped = text.replace(
    // eslint-disable-next-line no-control-regex -- the control characters XML 1.0 forbids are what this escapes
    /[&<>"']|[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    (c) => XML_ENTITIES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  // A parser turns line breaks and tabs in an attribute into spaces unless they are character references.
  return attribute ? escaped.replace(/[\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`) : escaped;
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
