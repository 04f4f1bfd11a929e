// The console's HTML building: every interpolated value is escaped, markup
// only comes from the templates themselves.
import { describe, expect, it } from 'vitest';
import { escapeHtml, html, q } from '../../../../broker/src/http/console/html.js';

describe('console html', () => {
  it('escapes the five HTML metacharacters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(escapeHtml('plain text 123')).toBe('plain text 123');
  });

  it('html`` escapes strings, numbers and arrays, and keeps Html fragments as markup', () => {
    const evil = '<script>alert("x")</script>';
    const inner = html`<b>${evil}</b>`;
    expect(inner.text).toBe('<b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</b>');
    expect(html`<td>${inner}</td><td>${42}</td><td>${null}${undefined}</td>`.text).toBe(`<td>${inner.text}</td><td>42</td><td></td>`);
    expect(html`<ul>${['<i>', html`<li>ok</li>`]}</ul>`.text).toBe('<ul>&lt;i&gt;<li>ok</li></ul>');
    expect(html`<a title="${'" onmouseover="x'}">`.text).toBe('<a title="&quot; onmouseover=&quot;x">');
  });

  it('q() encodes a query-string value', () => {
    expect(q('<b id="g">&x')).toBe('%3Cb%20id%3D%22g%22%3E%26x');
    expect(q(3)).toBe('3');
  });
});
