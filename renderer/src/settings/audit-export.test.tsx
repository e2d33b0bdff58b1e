// @vitest-environment happy-dom
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { HIDDEN_HEADER } from '../../../shared/audit-export-schema';
import { FakeApi } from '../test/fake-api';
import { renderApp } from '../test/render-app';

const section = () => within(screen.getByRole('region', { name: 'Audit export' }));

describe('settings: audit export', () => {
  it('shows each destination with its state, cursor, backlog and last error', async () => {
    const api = new FakeApi();
    api.settings = { ...api.settings, auditExport: { syslog: { transport: 'tcp', host: 'siem.example', port: 6514, facility: 13, enterpriseId: 32473 } } };
    api.status = {
      ...api.status,
      auditExport: {
        source: 'person',
        sinks: [
          {
            kind: 'syslog',
            target: 'tcp://siem.example:6514',
            state: 'down',
            exportedSeq: 41,
            backlog: 7,
            backlogExceeded: false,
            failures: 3,
            lastError: 'connect ECONNREFUSED',
          },
        ],
      },
    };
    await renderApp(api, 'settings');
    const list = section().getByRole('list', { name: 'Export destinations' });
    expect(list.textContent).toMatch(/syslog tcp:\/\/siem\.example:6514: down \(set by you; exported up to #41, backlog 7\) Last error: connect ECONNREFUSED/);
    // The form starts from the saved destination.
    expect(section().getByLabelText('Host')).toHaveProperty('value', 'siem.example');
  });

  it('checks the form with the shared schema, sets OTLP with a write-only header, keeps a saved header, and removes', async () => {
    const api = new FakeApi();
    await renderApp(api, 'settings');
    const user = userEvent.setup();
    expect(section().getByText('The audit log is not exported.')).toBeTruthy();
    await user.click(section().getByLabelText(/OpenTelemetry/));
    await user.type(section().getByLabelText('Endpoint'), 'ftp://collector');
    await user.click(section().getByRole('button', { name: 'Export here' }));
    expect(section().getByRole('alert', { name: 'The destination is not valid' }).textContent).toMatch(/otlp\.endpoint/);
    expect(api.callsOf('updateSettings')).toEqual([]);

    await user.clear(section().getByLabelText('Endpoint'));
    await user.type(section().getByLabelText('Endpoint'), 'https://collector.example:4318/v1/logs');
    await user.selectOptions(section().getByLabelText('Protocol'), 'http/json');
    await user.click(section().getByRole('button', { name: 'Add a header' }));
    await user.type(section().getByLabelText('Header name'), 'authorization');
    const value = section().getByLabelText('Header value');
    expect(value).toHaveProperty('type', 'password');
    await user.type(value, 'Bearer s3cret');
    await user.click(section().getByRole('button', { name: 'Export here' }));
    expect(api.callsOf('updateSettings')).toEqual([
      [{ auditExport: { otlp: { endpoint: 'https://collector.example:4318/v1/logs', protocol: 'http/json', headers: { authorization: 'Bearer s3cret' } } } }],
    ]);
    await section().findByText(/Saved: the audit log is exported there/);

    // As the broker shows it back: the value hidden. The field is empty, and saving again keeps it.
    api.settings = {
      ...api.settings,
      auditExport: { otlp: { endpoint: 'https://collector.example:4318/v1/logs', protocol: 'http/json', headers: { authorization: HIDDEN_HEADER } } },
    };
    await user.click(section().getByRole('button', { name: 'Export here' }));
    await waitFor(() => expect(section().getByLabelText(/New value for authorization/)).toHaveProperty('value', ''));
    expect(document.body.textContent).not.toContain('s3cret');
    await user.click(section().getByRole('button', { name: 'Export here' }));
    expect(api.callsOf('updateSettings').at(-1)).toEqual([
      { auditExport: { otlp: { endpoint: 'https://collector.example:4318/v1/logs', protocol: 'http/json', headers: { authorization: HIDDEN_HEADER } } } },
    ]);

    await user.click(section().getByRole('button', { name: 'Stop exporting' }));
    expect(api.callsOf('updateSettings').at(-1)).toEqual([{ auditExport: null }]);
    await waitFor(() => expect(section().queryByRole('button', { name: 'Stop exporting' })).toBeNull());
  });

  it('sets a tls syslog destination with a CA file, and shows the broker refusing it', async () => {
    const api = new FakeApi();
    api.updateSettings = async (patch) => {
      api.calls.push({ method: 'updateSettings', args: [patch] });
      throw new Error('The CA file /etc/ca.pem cannot be read.');
    };
    await renderApp(api, 'settings');
    const user = userEvent.setup();
    await user.click(section().getByLabelText(/Syslog/));
    await user.selectOptions(section().getByLabelText('Transport'), 'tls');
    await user.type(section().getByLabelText('Host'), 'siem.example');
    await user.type(section().getByLabelText('Port'), '6514');
    await user.type(section().getByLabelText(/CA file/), '/etc/ca.pem');
    await user.click(section().getByRole('button', { name: 'Export here' }));
    expect(api.callsOf('updateSettings')).toEqual([
      [{ auditExport: { syslog: { transport: 'tls', host: 'siem.example', port: 6514, ca: '/etc/ca.pem', facility: 13, enterpriseId: 32473 } } }],
    ]);
    expect((await section().findByRole('alert')).textContent).toBe('Not changed: The CA file /etc/ca.pem cannot be read.');
  });

  it('is read-only with the reason when the organization requires the export', async () => {
    const api = new FakeApi();
    api.status = {
      ...api.status,
      auditExport: {
        source: 'managed',
        required: { reason: 'Security keeps every agent decision (SEC-12).' },
        sinks: [
          {
            kind: 'otlp',
            target: 'http/protobuf https://otel.corp:4318/v1/logs',
            state: 'ok',
            exportedSeq: 9,
            backlog: 0,
            backlogExceeded: false,
            failures: 0,
          },
        ],
      },
    };
    await renderApp(api, 'settings');
    expect(section().getByRole('note').textContent).toMatch(
      /Managed by your organization\. The audit export is required: Security keeps every agent decision \(SEC-12\)\. It cannot be changed here\./,
    );
    expect(section().queryByRole('form')).toBeNull();
    expect(section().queryByRole('button')).toBeNull();
    expect(section().getByRole('list', { name: 'Export destinations' }).textContent).toMatch(/set by your organization/);
  });
});
