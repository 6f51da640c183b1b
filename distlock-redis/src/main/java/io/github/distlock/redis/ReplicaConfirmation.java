package io.github.distlock.redis;

import java.util.List;

import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

/**
 * Asks Redis how many replicas have a lock: one write to the lock ({@code confirm.lua}) and {@code WAIT}, sent
 * together on one connection, since {@code WAIT} counts the replicas that have that connection's writes. Redisson
 * sends the {@code WAIT} of a batch with {@link BatchOptions#sync}, and reports its answer in
 * {@link BatchResult#getSyncedSlaves()}; the count is judged here, so that no replica connected is never enough.
 */
final class ReplicaConfirmation {

	private static final LockScripts.Script CONFIRM = LockScripts.Script.load("confirm.lua");

	private final RedissonClient client;

	private final ReplicaAcknowledgement acknowledgement;

	ReplicaConfirmation(RedissonClient client, ReplicaAcknowledgement acknowledgement) {
		this.client = client;
		this.acknowledgement = acknowledgement;
	}

	/**
	 * @param kind "s" for a string key, "z" for a member of a shared lock's holders
	 * @param holder the holder prefix on a string key, the member of a shared holder
	 * @return the replicas that acknowledged the lock, or -1 when the holder no longer owns it
	 */
	int confirm(String key, String kind, String holder) {
		BatchResult<?> result;
		try {
			result = send(key, kind, holder);
		}
		catch (RedisNoScriptException ex) {
			// By SHA, as every script of the engine (its ACL allows no EVAL); loaded again after a restart.
			this.client.getScript(StringCodec.INSTANCE).scriptLoad(CONFIRM.text());
			result = send(key, kind, holder);
		}
		if (((Long) result.getResponses().get(0)) != 1L) {
			return -1;
		}
		return result.getSyncedSlaves();
	}

	private BatchResult<?> send(String key, String kind, String holder) {
		RBatch batch = this.client.createBatch(BatchOptions.defaults()
			.sync(this.acknowledgement.replicas(), this.acknowledgement.timeout())
			.retryAttempts(0));
		batch.getScript(StringCodec.INSTANCE)
			.evalShaAsync(Mode.READ_WRITE, CONFIRM.sha(), ReturnType.LONG, List.of(key), kind, holder);
		return batch.execute();
	}

}
