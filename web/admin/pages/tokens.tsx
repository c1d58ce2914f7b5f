/** The signed-in user's API tokens: mint (plaintext shown once, with a copy button), list, revoke. */
import { DataTable } from "../../shared/data_table.tsx";
import { useState } from "preact/hooks";
import { api, type ApiToken } from "../api.ts";
import {
  Confirm,
  Empty,
  ErrorNote,
  Field,
  Loading,
  Notice,
  PageHeader,
  Time,
  useAction,
  useLoad,
} from "../components.tsx";

export function TokensPage(props: { mode: "user" | "bearer" | "none" }) {
  if (props.mode !== "user") {
    return (
      <>
        <PageHeader title="API Tokens" />
        <Empty title="No personal tokens in this mode">
          This server runs with <code>MEMSVC_AUTH_MODE={props.mode}</code>
          {props.mode === "bearer" ? ": agents use the shared MEMSVC_AUTH_TOKEN." : ": agents need no token."}
        </Empty>
      </>
    );
  }
  return <Tokens />;
}

function Tokens() {
  const tokens = useLoad(() => api.tokens(), []);
  const [label, setLabel] = useState("");
  const [minted, setMinted] = useState<{ token: string; label: string }>();
  const [copied, setCopied] = useState<string>();
  const [revoking, setRevoking] = useState<ApiToken>();
  const [done, setDone] = useState<string>();
  const action = useAction();

  const create = async (e: Event) => {
    e.preventDefault();
    setDone(undefined);
    const issued = await action.run(() => api.createToken(label.trim()));
    if (issued) {
      setMinted({ token: issued.token, label: issued.label });
      setCopied(undefined);
      setLabel("");
      await tokens.reload();
    }
  };

  const copy = async () => {
    if (!minted) return;
    try {
      await navigator.clipboard.writeText(minted.token);
      setCopied("Copied to the clipboard.");
    } catch {
      // Clipboard access can be refused (permissions, insecure origin): select the text instead.
      const el = document.getElementById("minted-token") as HTMLInputElement | null;
      el?.select();
      setCopied("Press Ctrl+C (⌘C) to copy the selected token.");
    }
  };

  return (
    <>
      <PageHeader
        title="API Tokens"
        lead="Tokens let agents and scripts use memsvc as you. Each reaches what you reach."
      />
      <form class="card inline-form" onSubmit={create}>
        <Field label="Label" hint="Where the token will live, e.g. “laptop – Claude Code”.">
          <input
            name="label"
            required
            maxLength={200}
            value={label}
            onInput={(e) => setLabel(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create token"}
        </button>
      </form>
      <ErrorNote error={action.error} />
      {done && <Notice tone="success">{done}</Notice>}
      {minted && (
        <section class="card minted" aria-labelledby="minted-title">
          <h2 id="minted-title" class="card-title">Token “{minted.label}” created</h2>
          <p>Copy it now: it is shown only this once. memsvc keeps only a hash of it.</p>
          <div class="copy-row">
            <input
              id="minted-token"
              class="mono"
              readOnly
              value={minted.token}
              aria-label="New token"
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" class="btn btn-primary" onClick={copy}>Copy</button>
          </div>
          {copied && <p class="muted small" role="status">{copied}</p>}
          <p class="muted small">
            Use it as <code>Authorization: Bearer &lt;token&gt;</code>, or in an MCP host config.
          </p>
          <button type="button" class="btn btn-small" onClick={() => setMinted(undefined)}>
            I have copied it
          </button>
        </section>
      )}
      {tokens.error && <ErrorNote error={tokens.error} onRetry={tokens.reload} />}
      {!tokens.data && tokens.loading && <Loading />}
      {tokens.data && tokens.data.tokens.length === 0 && (
        <Empty title="No tokens yet">Create one above to connect an agent.</Empty>
      )}
      {tokens.data && tokens.data.tokens.length > 0 && (
        <DataTable
          label="API tokens"
          named
          rows={tokens.data.tokens}
          rowKey={(t) => t.tokenHash}
          rowProps={(t) => ({ "data-label": t.label })}
          columns={[
            { header: "Label", cell: (t) => t.label, class: "strong" },
            {
              header: "Identifier",
              cell: (t) => <code title={t.tokenHash}>{t.tokenHash.slice(0, 12)}…</code>,
            },
            { header: "Created", cell: (t) => <Time iso={t.createdAt} /> },
            { header: "Last used", cell: (t) => <Time iso={t.lastUsedAt} /> },
            {
              header: <span class="sr-only">Actions</span>,
              cell: (t) => (
                <div class="row-actions">
                  <button
                    type="button"
                    class="btn btn-small btn-danger"
                    onClick={() => setRevoking(t)}
                  >
                    Revoke
                  </button>
                </div>
              ),
            },
          ]}
        />
      )}
      <Confirm
        open={!!revoking}
        title="Revoke token?"
        confirmLabel="Revoke token"
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          const t = revoking!;
          await api.revokeToken(t.tokenHash);
          setRevoking(undefined);
          setDone(`Revoked “${t.label}”. Agents using it now get 401.`);
          await tokens.reload();
        }}
      >
        <p>Anything using “{revoking?.label}” stops working at once. This cannot be undone.</p>
      </Confirm>
    </>
  );
}
