export { ClusterKeyError, type ClusterKeyProblem } from './cluster-key.error';
export {
  CLUSTER_KEY_BYTES_MIN,
  ClusterKeyring,
  KeyPurpose,
  type MacPurpose,
  type RingKey,
  parseClusterKeys,
  readClusterKeyFile,
} from './cluster-keyring';
