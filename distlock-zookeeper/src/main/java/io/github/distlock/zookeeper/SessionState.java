package io.github.distlock.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * What the engine knows of its ZooKeeper session, from Curator's connection states.
 * <p>
 * SUSPENDED means the connection dropped: the session may still live on the server (and with it every lock node), or
 * may already have expired there, and the client cannot tell which until it reconnects. Held locks are then
 * suspect: nothing may be confirmed without the server. LOST means the session is over (expired on the server, or
 * disconnected for longer than its timeout): every ephemeral node it had is gone or going, so every held lock is
 * lost. A reconnection after LOST is a new session that owns nothing of the old one.
 */
final class SessionState implements ConnectionStateListener {

	private final Runnable onSessionLost;

	private volatile boolean connected;

	/**
	 * @param onSessionLost told when the session ends, on Curator's event thread
	 */
	SessionState(CuratorFramework client, Runnable onSessionLost) {
		this.onSessionLost = onSessionLost;
		this.connected = client.getZookeeperClient().isConnected();
	}

	/** Whether the server can be asked now; false while suspended or after the session was lost. */
	boolean isConnected() {
		return this.connected;
	}

	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		switch (newState) {
			case CONNECTED, RECONNECTED -> this.connected = true;
			case SUSPENDED, READ_ONLY -> this.connected = false;
			case LOST -> {
				this.connected = false;
				this.onSessionLost.run();
			}
		}
	}

}
