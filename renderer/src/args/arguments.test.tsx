// @vitest-environment happy-dom
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import '../test/render-app';
import { ArgumentsView } from './ArgumentsView';

const marks = (el: Element, cls: string) => [...el.querySelectorAll(`.mark-${cls}`)].map((m) => m.textContent);

describe('arguments', () => {
  it('makes control and invisible characters visible, in the tree and the raw view', async () => {
    render(<ArgumentsView value={{ cmd: 'ls\u001b[2J\u200b\u202Etxt.exe', 'ke\u200by': 1 }} />);
    const tree = screen.getByRole('list', { name: 'arguments as a tree' });
    expect(marks(tree, 'ctl')).toEqual(['\\x1b', '\\u200b', '\\u202e', '\\u200b']);
    expect(tree.textContent).not.toMatch(/[\u001b\u200b\u202e]/);
    await userEvent.click(screen.getByRole('button', { name: 'Raw' }));
    const raw = screen.getByLabelText('Raw arguments');
    // JSON.stringify already writes ESC as \u001b; the invisible ones are marked.
    expect(raw.textContent).toContain('\\u001b[2J');
    expect(marks(raw, 'ctl')).toEqual(['\\u200b', '\\u202e', '\\u200b']);
  });

  it('shows runs of whitespace, tabs and odd spaces', () => {
    render(
      <ArgumentsView
        value={{ note: 'safe text' + ' '.repeat(40) + '; rm -rf ~', tabbed: 'a\tb', nbsp: 'x\u00a0y', trailing: 'end  ', leading: '   rm -rf ~' }}
      />,
    );
    const tree = screen.getByRole('list', { name: 'arguments as a tree' });
    const ws = marks(tree, 'ws');
    expect(ws).toContain('·'.repeat(40));
    expect(ws).toContain('→\t');
    expect(ws).toContain('··');
    expect(ws).toContain('···'); // the leading run of 'leading'
    expect(marks(tree, 'ws').filter((m) => m === '···')).toHaveLength(1);
    expect(marks(tree, 'ctl')).toContain('\\u00a0');
  });

  it('wraps long strings and says how long they are, without cutting them', () => {
    const long = 'x'.repeat(5000) + 'THE END';
    render(<ArgumentsView value={{ content: long, lines: 'a\nb\nc' }} />);
    expect(screen.getByText('string · 5,007 characters')).toBeTruthy();
    expect(screen.getByText('string · 5 characters · 3 lines')).toBeTruthy();
    expect(screen.getByRole('list', { name: 'arguments as a tree' }).textContent).toContain(long);
  });

  it('flags values that look like secrets, by key name or by shape', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----';
    render(
      <ArgumentsView
        value={{
          password: 'hunter2',
          headers: { api_key: 'abc', Authorization: 'Bearer abcdefghijklmnopqrstuvwxyz' },
          note: 'use sk-proj-abcdefghijklmnop1234',
          gh: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
          jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
          pem,
          harmless: 'hello',
          count: 3,
        }}
      />,
    );
    const note = screen.getByRole('note');
    expect(within(note).getByText('7 values look like secrets')).toBeTruthy();
    const paths = within(note)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(paths).toEqual([
      'password: the name "password" suggests a secret',
      'headers.api_key: the name "api_key" suggests a secret',
      'headers.Authorization: looks like a bearer token',
      'note: looks like an OpenAI API key (sk-proj-…)',
      'gh: looks like a GitHub token (ghp_…)',
      'jwt: looks like a JSON Web Token',
      'pem: looks like a PEM private key',
    ]);
    const flagged = [...document.querySelectorAll('.jn-secret .jk')].map((k) => k.textContent);
    expect(flagged).toEqual(['password', 'api_key', 'Authorization', 'note', 'gh', 'jwt', 'pem']);
  });

  it('folds and unfolds objects', async () => {
    render(<ArgumentsView value={{ nested: { deep: 'value' } }} />);
    const tree = screen.getByRole('list', { name: 'arguments as a tree' });
    expect(tree.textContent).toContain('deep: “value”');
    await userEvent.click(screen.getByRole('button', { name: /nested/ }));
    expect(tree.textContent).not.toContain('value”');
    expect(screen.getByRole('button', { name: /nested/ }).getAttribute('aria-expanded')).toBe('false');
  });
});
