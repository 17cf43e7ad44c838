package jsq

import (
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"slices"
)

// Permissions are the subjects a NATS user may publish to and subscribe
// to (allow lists: everything else is denied), in the JSON form of a
// nats-server configuration's "permissions" block.
type Permissions struct {
	Publish   SubjectAllow `json:"publish"`
	Subscribe SubjectAllow `json:"subscribe"`
}

// SubjectAllow is an allow list of subjects (wildcards * and >).
type SubjectAllow struct {
	Allow []string `json:"allow"`
}

// WorkerInbox is the inbox prefix of a worker's connection
// (nats.CustomInboxPrefix): the replies to its requests and its
// deliveries. Workers may subscribe only there, never to the
// coordinator's inboxes (_INBOX.>), which receive the outcomes it
// fetches and the answers of its stream requests.
func WorkerInbox(deployment string) string {
	return "_INBOX_MG." + token(deployment) + ".worker"
}

// WorkerPermissions are the least privileges of a worker of deployment
// (`molgraph worker`, also enough for `molgraph workers`): it binds the
// task consumers the coordinator created, fetches from them and
// acknowledges (ack, nak, term, heartbeats) what they delivered, reads
// the inputs object store, publishes outcomes, keeps its presence in the
// workers bucket and hears job cancellations. It can create, update,
// delete or purge no stream of the deployment and no task or results
// consumer, publish no task and no cancellation, and read no outcome
// (the results stream takes no request of its but its info), no advisory
// and no coordinator inbox.
//
// Not prevented (the user is shared by every worker): publishing an
// outcome for a unit it did not fetch (the commit validates an outcome's
// content and drops a second one of the same unit, see README), reading
// any queued unit and any input (the work it exists for), and writing
// another worker's presence entry.
func WorkerPermissions(deployment string) Permissions {
	n := names{token(deployment)}
	api := "$JS.API."
	tasks, workersKV, inputsObj := n.tasks(), "KV_"+n.workers(), "OBJ_"+n.inputs()
	return Permissions{
		Publish: SubjectAllow{Allow: slices.Concat([]string{
			// Task consumers: bind (info), fetch, acknowledge.
			api + "CONSUMER.INFO." + tasks + ".*",
			api + "CONSUMER.MSG.NEXT." + tasks + ".*",
			"$JS.ACK." + tasks + ".>",
			// Outcomes.
			"mg." + n.dep + ".result.>",
			// Presence: the workers bucket (put, delete; list and get
			// for `molgraph workers`: an ordered consumer of its own).
			"$KV." + n.workers() + ".>",
		}, streamReads(api, workersKV),
			// Inputs: the object store's info, an object's metadata and
			// its chunks (an ordered consumer of its own).
			streamReads(api, inputsObj), []string{
				// `molgraph workers`: unit counts (stream and consumer
				// state, never a message).
				api + "STREAM.INFO." + tasks,
				api + "STREAM.INFO." + n.results(),
				api + "CONSUMER.LIST." + tasks,
			})},
		Subscribe: SubjectAllow{Allow: []string{WorkerInbox(deployment) + ".>", n.cancel()}},
	}
}

func (p *Permissions) server() *server.Permissions {
	if p == nil {
		return nil
	}
	return &server.Permissions{Publish: &server.SubjectPermission{Allow: p.Publish.Allow},
		Subscribe: &server.SubjectPermission{Allow: p.Subscribe.Allow}}
}

// User is an nkey user of an embedded server.
type User struct {
	Nkey string // public key
	// Permissions: nil allows every subject (the coordinator).
	Permissions *Permissions
	// InProcess users connect only in process (ConnectInProcess), never
	// through the listener.
	InProcess bool
}

// NewCoordinator returns the coordinator's user of an embedded server (every
// permission, in-process connections only) and the connection option
// that authenticates as it. Its key lives in this process's memory only:
// a new one at each start, nothing on disk to copy or steal.
func NewCoordinator() (User, nats.Option, error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return User{}, nil, err
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return User{}, nil, err
	}
	return User{Nkey: pub, InProcess: true}, nats.Nkey(pub, kp.Sign), nil
}

// streamReads are the subjects that read the KV bucket or object store
// whose stream is stream through an ordered consumer of its own: the
// stream's info, direct and message gets, creating and deleting that
// consumer, and its flow control.
func streamReads(api, stream string) []string {
	return []string{
		api + "STREAM.INFO." + stream,
		api + "DIRECT.GET." + stream + ".>",
		api + "STREAM.MSG.GET." + stream,
		api + "CONSUMER.CREATE." + stream,
		api + "CONSUMER.CREATE." + stream + ".>",
		api + "CONSUMER.DELETE." + stream + ".>",
		"$JS.FC." + stream + ".>",
	}
}
