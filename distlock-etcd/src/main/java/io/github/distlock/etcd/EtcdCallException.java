package io.github.distlock.etcd;

/**
 * A failed etcd call as distlock passes it on (the cause of a {@link io.github.distlock.LockAcquisitionException}):
 * its message is the operator's sentence of {@link EtcdFailure#describe}, which names no address and no credential,
 * unlike the client's own messages; the client's exception is its cause.
 */
final class EtcdCallException extends RuntimeException {

	EtcdCallException(String message, Throwable cause) {
		super(message, cause);
	}

}
