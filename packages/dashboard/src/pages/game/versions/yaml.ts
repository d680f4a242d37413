import { stringify } from 'yaml';

/** A config as YAML, as a person would write it: snake_case keys as on the wire, no folded lines. */
export function toYaml(config: unknown): string {
  return stringify(config, { lineWidth: 0 });
}

/** Where a new version starts when it is not made from another one: valid, and showing the shape. */
export const STARTER_CONFIG = `# The version's configuration: YAML (or JSON), with the service's snake_case keys.
# It is checked as you type. To run lobbies, upload a build (Builds), then uncomment
# the matchmaker below and set image_id to the build's id.
kv: {}
# matchmaker:
#   max_players: 8
#   game_modes:
#     default:
#       container:
#         image_id: <build id>
#         ports:
#           game:
#             port: 7777
#             protocol: udp
`;
