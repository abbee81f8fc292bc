import { type FormEvent, useState } from 'react';
import { domainSchema } from '../../contract/schemas/projects.js';
import { type ConfigPatch, saveConfig } from '../components/config.js';
import { Link } from '../components/router.js';
import { Card, ConfirmButton, Empty, ErrorMessage, InlineForm, InlineInput, PageHeader, Switch, Table, useAction, useFormAction } from '../components/ui.js';
import type { PageProps } from './page-props.js';

/** Trusted domains with their handler paths, localhost, and the production-mode problem list. */
export function DomainsPage({ projectId, admin, project }: PageProps) {
  const config = project.config;
  const [domain, setDomain] = useState('https://');
  const [handlerPath, setHandlerPath] = useState('/handler');
  const saving = useAction((patch: ConfigPatch) => saveConfig(admin, patch));
  const adding = useFormAction(domainSchema, async (entry: { domain: string; handler_path: string }) => {
    await saveConfig(admin, { domains: [...config.domains, entry] });
    setDomain('https://');
  });
  const add = (event: FormEvent) => {
    event.preventDefault();
    void adding.submit({ domain: domain.trim(), handler_path: handlerPath.trim() });
  };
  const problems = project.production_mode_problems;
  return (
    <>
      <PageHeader title="Domains and handlers" description="Where your app runs: redirects and email links may only go to these domains." />
      <Card title="Production readiness">
        {problems.length === 0 ? (
          <div className="alert alert-ok" role="status">
            No problems: this project is ready for production mode.
          </div>
        ) : (
          <ul aria-label="Production mode problems" className="stack" style={{ paddingLeft: 18, margin: 0 }}>
            {problems.map((problem) => (
              <li key={problem.message}>
                {problem.message}{' '}
                {problem.relative_fix_url !== `/projects/${projectId}/domains` ? (
                  <Link href={problem.relative_fix_url}>Fix</Link>
                ) : (
                  <span className="muted small">(fix below)</span>
                )}
              </li>
            ))}
          </ul>
        )}
        <p className="muted small">
          Production mode is switched in <Link href={`/projects/${projectId}/settings`}>project settings</Link>.
        </p>
      </Card>
      <Card title="Localhost">
        <Switch
          label="Allow localhost"
          description="Lets redirects go to http://localhost during development. Turn off for production."
          checked={config.allow_localhost}
          onChange={(checked) => saving.run({ allow_localhost: checked })}
        />
      </Card>
      <Card title="Trusted domains">
        {config.domains.length === 0 ? (
          <Empty title="No trusted domains">Add the domain your app is served from, for example https://app.example.com.</Empty>
        ) : (
          <Table
            label="Trusted domains"
            columns={['Domain', 'Handler path', null]}
            items={config.domains}
            row={(entry, index) => (
              <tr key={`${entry.domain}-${index}`}>
                <td className="mono">{entry.domain}</td>
                <td className="mono">{entry.handler_path}</td>
                <td className="actions end">
                  <ConfirmButton
                    className="button small danger"
                    label="Remove"
                    title="Remove this domain?"
                    message={
                      <p>
                        Redirects and email links to <code>{entry.domain}</code> will be refused.
                      </p>
                    }
                    onConfirm={() => saveConfig(admin, { domains: config.domains.filter((_, i) => i !== index) })}
                  />
                </td>
              </tr>
            )}
          />
        )}
        <InlineForm onSubmit={add} submitLabel="Add domain" align="start" spaced>
          <InlineInput
            label="Domain"
            error={adding.errors.domain}
            hint="https://app.example.com, or a wildcard like https://*.example.com"
            type="url"
            value={domain}
            onValue={setDomain}
            style={{ flex: 2, minWidth: 240 }}
          />
          <InlineInput
            label="Handler path"
            error={adding.errors.handler_path}
            type="text"
            value={handlerPath}
            onValue={setHandlerPath}
            style={{ flex: 1, minWidth: 160 }}
          />
        </InlineForm>
        <ErrorMessage error={adding.error ?? saving.error} title="Could not save" />
      </Card>
    </>
  );
}
