/**
 * A small, bounded reader of the XML the EC2 Query API answers with: elements, their text and
 * their children; attributes, comments, processing instructions and namespaces are skipped. It
 * refuses (XmlError) what it cannot read for sure: more than `maxChars`, deeper than `maxDepth`,
 * more than `maxElements`, a DOCTYPE (no entity expansion), mismatched or unclosed tags, text
 * outside the root. The EC2 answers it reads are a few kilobytes.
 */

export interface XmlElement {
  /** The local name (a namespace prefix is dropped). */
  readonly name: string;
  readonly children: XmlElement[];
  /** The element's own text (entities decoded), not its children's. */
  text: string;
}

export interface XmlLimits {
  readonly maxChars: number;
  readonly maxDepth: number;
  readonly maxElements: number;
}

export const XML_LIMITS: XmlLimits = { maxChars: 256 * 1024, maxDepth: 32, maxElements: 10_000 };

export class XmlError extends Error {
  override readonly name = 'XmlError';
}

const ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/g, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code =
        entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    const named = ENTITIES[entity];
    if (named === undefined) throw new XmlError(`unknown entity ${whole}`);
    return named;
  });
}

const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/** The root element of `text`. */
export function parseXml(text: string, limits: XmlLimits = XML_LIMITS): XmlElement {
  if (text.length > limits.maxChars) throw new XmlError(`over ${limits.maxChars} characters`);
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const chunk = text.slice(i, lt === -1 ? text.length : lt);
    const top = stack[stack.length - 1];
    if (top) top.text += decode(chunk);
    else if (chunk.trim() !== '') throw new XmlError('text outside the root element');
    if (lt === -1) break;
    if (text.startsWith('<?', lt)) {
      i = after(text, '?>', lt);
    } else if (text.startsWith('<!--', lt)) {
      i = after(text, '-->', lt);
    } else if (text.startsWith('<![CDATA[', lt)) {
      const end = after(text, ']]>', lt);
      if (!top) throw new XmlError('CDATA outside the root element');
      top.text += text.slice(lt + 9, end - 3);
      i = end;
    } else if (text.startsWith('<!', lt)) {
      throw new XmlError('a DOCTYPE or declaration is not accepted');
    } else {
      const end = after(text, '>', lt);
      const tag = text.slice(lt + 1, end - 1);
      i = end;
      if (tag.startsWith('/')) {
        const name = localName(tag.slice(1).trim());
        const open = stack.pop();
        if (open?.name !== name)
          throw new XmlError(`</${name}> closes <${open?.name ?? 'nothing'}>`);
        continue;
      }
      const selfClosing = tag.endsWith('/');
      const name = localName((/^[^\s/>]+/.exec(tag) ?? [''])[0]);
      if (!/^[A-Za-z_][\w.-]*$/.test(name)) throw new XmlError('a tag without a valid name');
      if (++elements > limits.maxElements)
        throw new XmlError(`over ${limits.maxElements} elements`);
      const element: XmlElement = { name, children: [], text: '' };
      if (top) top.children.push(element);
      else if (root) throw new XmlError('a second root element');
      else root = element;
      if (!selfClosing) {
        stack.push(element);
        if (stack.length > limits.maxDepth) throw new XmlError(`deeper than ${limits.maxDepth}`);
      }
    }
  }
  if (stack.length > 0) throw new XmlError(`<${stack[stack.length - 1]?.name}> is never closed`);
  if (!root) throw new XmlError('no element');
  return root;
}

function after(text: string, token: string, from: number): number {
  const at = text.indexOf(token, from + 1);
  if (at === -1) throw new XmlError(`unterminated markup (no ${token})`);
  return at + token.length;
}

/** The first child named `name` (undefined when none). */
export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((c) => c.name === name);
}

/** The children named `name`. */
export function childrenNamed(element: XmlElement | undefined, name: string): XmlElement[] {
  return element?.children.filter((c) => c.name === name) ?? [];
}

/** The trimmed text at the end of `path` (undefined when absent or empty). */
export function textAt(element: XmlElement | undefined, ...path: string[]): string | undefined {
  let current = element;
  for (const name of path) current = child(current, name);
  const text = current?.text.trim();
  return text ? text : undefined;
}
