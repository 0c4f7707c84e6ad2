// The health check of the `mongo` service of docker-compose.yml, run by mongosh in its container
// (`mongosh --quiet --file /docker/mongo-replica-set.js`, every 10 s). It makes and keeps the
// replica set the service expects:
// - not yet initiated (the first check on a new volume): initiates `rs0` with this member alone,
//   named as the other containers reach it (`mongo:27017`);
// - healthy (exit code 0) only while this member is the primary, so that the service starts once
//   writes and transactions can be served;
// - REPLICA_SET_ADD (docker-compose.three-members.yml sets it): each member listed there and not
//   yet in the set is added, one reconfiguration at a time (MongoDB refuses two at once; the next
//   check adds the next).
/* global rs, db, quit, print */

const SET = 'rs0';
const SELF = 'mongo:27017';

let initiated = true;
try {
  rs.status();
} catch {
  initiated = false;
}
if (!initiated) rs.initiate({ _id: SET, members: [{ _id: 0, host: SELF }] });
if (!db.hello().isWritablePrimary) quit(1);

const wanted = (process.env.REPLICA_SET_ADD ?? '').split(',').filter((host) => host.trim() !== '');
const present = rs.conf().members.map((member) => member.host);
const missing = wanted.map((host) => host.trim()).filter((host) => !present.includes(host));
if (missing.length > 0) {
  try {
    rs.add(missing[0]);
    print(`added ${missing[0]} to replica set ${SET}`);
  } catch (error) {
    // The member does not answer yet, or the last reconfiguration is still being committed.
    print(`could not add ${missing[0]} yet: ${error.message}`);
  }
}
