// Package deploy holds what installs Earshot beside the binary: the
// hardened systemd unit (earshot.service). It has no code; its tests check
// every install artefact of the repository as a self-hoster meets it: the
// release script's static binaries and SHA256SUMS, the binary serving in an
// empty root directory, the Dockerfile, compose.yaml, the unit (through
// systemd-analyze), LICENSE and the Go modules NOTICE lists.
package deploy
