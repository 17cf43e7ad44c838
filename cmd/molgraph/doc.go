// Command molgraph is the molgraph chemistry knowledge-graph service and
// its administration tool.
//
// Usage:
//
//	molgraph serve [flags]                 run the HTTP service
//	molgraph keys create --name N --scopes read,write [--expires 720h]
//	molgraph keys list [--json]
//	molgraph keys revoke ID
//
// Configuration comes from flags and MOLGRAPH_* environment variables (a
// flag wins over its variable); see "molgraph serve -h". This package is
// the only one that reads configuration; it wires every dependency
// explicitly.
package main
