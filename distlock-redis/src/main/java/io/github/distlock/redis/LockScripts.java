package io.github.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

/**
 * Runs the engine's Lua scripts by SHA through Redisson, loading a script again when the server has forgotten it
 * (after a restart or {@code SCRIPT FLUSH}).
 * <p>
 * Calls go out with no retries and one command timeout, so a caller's wait is never stretched by a retry chain.
 */
class LockScripts {

	static final Script ACQUIRE = Script.load("token.lua", "acquire.lua");

	static final Script TRY = Script.load("token.lua", "try.lua");

	static final Script ACQUIRE_ALL = Script.load("token.lua", "acquire_all.lua");

	static final Script RELEASE = Script.load("announce.lua", "token.lua", "release.lua");

	static final Script RENEW = Script.load("renew.lua");

	static final Script CHECK = Script.load("check.lua");

	static final Script FORCE_RELEASE = Script.load("announce.lua", "force_release.lua");

	static final Script WITHDRAW = Script.load("withdraw.lua");

	static final Script SHARED_ACQUIRE = Script.load("announce.lua", "token.lua", "shared_lib.lua", "shared_acquire.lua");

	static final Script SHARED_RELEASE = Script.load("announce.lua", "token.lua", "shared_lib.lua", "shared_release.lua");

	static final Script SHARED_WITHDRAW = Script.load("announce.lua", "token.lua", "shared_lib.lua",
			"shared_withdraw.lua");

	static final Script SHARED_CHECK = Script.load("shared_check.lua");

	static final Script PING = new Script("return 1", Script.sha1("return 1"));

	private final RedissonClient client;

	private final RScript script;

	/** For calls sent together: no retries, and the command timeout as the whole batch's. */
	private final BatchOptions batchOptions;

	private final StoreRefusals refusals = new StoreRefusals();

	private static final Duration UNKNOWN_TIMEOUT_ANSWER_BOUND = Duration.ofSeconds(10);

	/** Where calls go together whose master is not known: one batch of their own, which Redisson splits itself. */
	private static final Object NO_MASTER_KNOWN = new Object();

	private final Duration answerBound;

	/** Where calls by SHA go when they can: one connection per master shared by all threads. */
	private final SharedConnections shared;

	/** Each call's timeout on a shared connection: the command timeout, or -1 for the client's own. */
	private final long sharedTimeoutMillis;

	LockScripts(RedissonClient client, @Nullable Duration commandTimeout) {
		this(client, commandTimeout, SharedConnections.of(client));
	}

	/**
	 * For a single call (a health check's ping): every call goes the ordinary way, so nothing borrowed is left with
	 * a runner nobody closes.
	 */
	static LockScripts forOneCall(RedissonClient client, Duration commandTimeout) {
		return new LockScripts(client, commandTimeout, SharedConnections.none());
	}

	private LockScripts(RedissonClient client, @Nullable Duration commandTimeout, SharedConnections shared) {
		OptionalOptions options = OptionalOptions.defaults().codec(StringCodec.INSTANCE).retryAttempts(0);
		BatchOptions batchOptions = BatchOptions.defaults().retryAttempts(0);
		if (commandTimeout != null) {
			options = options.timeout(commandTimeout);
			batchOptions = batchOptions.responseTimeout(commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		this.client = client;
		this.script = client.getScript(options);
		this.batchOptions = batchOptions;
		this.answerBound = (commandTimeout != null) ? commandTimeout.plusSeconds(1) : UNKNOWN_TIMEOUT_ANSWER_BOUND;
		this.shared = shared;
		this.sharedTimeoutMillis = (commandTimeout != null) ? commandTimeout.toMillis() : -1;
	}

	/**
	 * The longest a call's answer can take: its command timeout (Redisson fails the call then, without retries) and a
	 * second of slack. With the timeout left to the Redisson client's own configuration, a bound that covers
	 * Redisson's default of 3 s with room to spare.
	 */
	Duration answerBound() {
		return this.answerBound;
	}

	<R> R run(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
		R result;
		try {
			try {
				result = awaitAnswer(sendBySha(lua, returnType, keys, args));
			}
			catch (RedisNoScriptException ex) {
				// Redisson runs a script by text as SCRIPT LOAD and EVALSHA, which puts it back in the cache.
				result = this.script.eval(Mode.READ_WRITE, lua.text, returnType, keys, args);
			}
		}
		catch (RedisException ex) {
			this.refusals.failed(ex);
			throw ex;
		}
		this.refusals.succeeded();
		return result;
	}

	<R> CompletionStage<R> runAsync(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
		return observed(this.script.evalAsync(Mode.READ_WRITE, lua.text, returnType, keys, args));
	}

	/** As {@link #run}, without waiting: by SHA, loading the script again if the server has forgotten it. */
	<R> CompletionStage<R> runByShaAsync(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
		CompletionStage<R> bySha = sendBySha(lua, returnType, keys, args);
		return observed(bySha.exceptionallyCompose((ex) -> (unwrap(ex) instanceof RedisNoScriptException)
				? this.script.<R>evalAsync(Mode.READ_WRITE, lua.text, returnType, keys, args)
				: CompletableFuture.failedStage(ex)));
	}

	/**
	 * Sends a script by SHA without waiting, with nothing chained to its answer, for a caller that waits on its own
	 * thread: a NOSCRIPT answer is the caller's to send again with {@link #sendByText}, and the outcome is the
	 * caller's to record ({@link #answered}, {@link #failed}). The I/O thread that completes the answer then only wakes
	 * the caller.
	 */
	<R> CompletableFuture<R> sendBySha(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
		// On the shared connection of the master of the first key when it is ready, else the ordinary way.
		return this.shared.evalSha(lua.sha, returnType, keys, args, this.sharedTimeoutMillis,
				() -> this.script.<R>evalShaAsync(Mode.READ_WRITE, lua.sha, returnType, keys, args)
					.toCompletableFuture());
	}

	/**
	 * Waits for an answer, through interrupts: a call already sent is answered or times out within its command
	 * timeout, and its caller (a release, a check) needs to know which.
	 */
	private static <R> R awaitAnswer(CompletableFuture<R> reply) {
		try {
			return reply.join();
		}
		catch (CompletionException ex) {
			throw asRedisException(ex);
		}
	}

	/** A failed call's cause, as the RedisException it almost always is. */
	static RedisException asRedisException(Throwable failure) {
		Throwable cause = unwrap(failure);
		return (cause instanceof RedisException redis) ? redis
				: new RedisException("Unexpected failure of a script call: " + cause, cause);
	}

	/** Gives back the connections shared by this runner's calls; later calls go the ordinary way. */
	void close() {
		this.shared.close();
	}

	/** The shared connections of this runner's calls by SHA, for tests that look at how calls went. */
	SharedConnections sharedConnections() {
		return this.shared;
	}

	/** As {@link #sendBySha}, by the script's text, which loads it on the server. */
	<R> CompletableFuture<R> sendByText(Script lua, ReturnType returnType, List<Object> keys, Object... args) {
		return this.script.<R>evalAsync(Mode.READ_WRITE, lua.text, returnType, keys, args).toCompletableFuture();
	}

	/** A call sent with {@link #sendBySha} succeeded. */
	void answered() {
		this.refusals.succeeded();
	}

	/** A call sent with {@link #sendBySha} failed. */
	void failed(Throwable failure) {
		this.refusals.failed(unwrap(failure));
	}

	/**
	 * Runs one script several times, sent together: the calls to each master in a Redisson batch of their own, sent
	 * in one write, so the whole costs one round trip per master. Each call answers for itself.
	 * <p>
	 * One batch per master, not one for all: when any part of a Redisson batch fails (a master killed, its connection
	 * refused; an answer past the timeout), Redisson fails every call of the batch still waiting, on every master,
	 * with that one exception, so the renewals a healthy master performed would be taken for failures (and Redisson
	 * 4.7's decoder, meeting that one exception on two calls of a later reply, logs "Self-suppression not permitted").
	 * <p>
	 * Each batch first loads the script on its master ({@code SCRIPT LOAD} keyed by the batch's first call, which
	 * changes nothing where the script is loaded already, and reaches no replica), ahead of the calls on the same
	 * connection: a master restarted or a replica just promoted would otherwise refuse every call with NOSCRIPT. A
	 * call that finds the script unknown all the same (flushed in between, or redirected to a new master) is run again
	 * by {@link #runByShaAsync}, which loads it.
	 * @param keys the keys of each call
	 * @param args the arguments of each call, in the order of {@code keys}
	 * @return each call's answer, in the order of {@code keys}
	 */
	<R> List<CompletionStage<R>> runByShaTogether(Script lua, ReturnType returnType, List<List<Object>> keys,
			List<Object[]> args) {
		Map<Object, RBatch> byMaster = new LinkedHashMap<>();
		List<CompletionStage<R>> answers = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			List<Object> callKeys = keys.get(i);
			Object[] callArgs = args.get(i);
			String firstKey = (String) callKeys.get(0);
			Object master = this.shared.masterOf(firstKey);
			RBatch batch = byMaster.computeIfAbsent((master != null) ? master : NO_MASTER_KNOWN, (any) -> {
				RBatch created = this.client.createBatch(this.batchOptions);
				created.getScript(StringCodec.INSTANCE).scriptLoadAsync(firstKey, lua.text);
				return created;
			});
			CompletionStage<R> bySha = batch.getScript(StringCodec.INSTANCE)
				.evalShaAsync(Mode.READ_WRITE, lua.sha, returnType, callKeys, callArgs);
			answers.add(observed(bySha.exceptionallyCompose((ex) -> (unwrap(ex) instanceof RedisNoScriptException)
					? runByShaAsync(lua, returnType, callKeys, callArgs) : CompletableFuture.failedStage(ex))));
		}
		// A batch's own answer adds nothing: its failure fails each of its calls' answers as well.
		byMaster.values().forEach(RBatch::executeAsync);
		return answers;
	}

	/** The refusals of this runner's calls, until one succeeds again. */
	StoreRefusals refusals() {
		return this.refusals;
	}

	private <R> CompletionStage<R> observed(CompletionStage<R> reply) {
		return reply.whenComplete((result, ex) -> {
			if (ex == null) {
				this.refusals.succeeded();
			}
			else {
				this.refusals.failed(unwrap(ex));
			}
		});
	}

	static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/** A script's text and the SHA-1 the server knows it by. */
	record Script(String text, String sha) {

		/** The script made of these resources, in order: functions first, then the body that calls them. */
		static Script load(String... resources) {
			StringBuilder text = new StringBuilder();
			for (String resource : resources) {
				try (InputStream in = LockScripts.class.getResourceAsStream(resource)) {
					if (in == null) {
						throw new IllegalStateException("Missing Lua script " + resource);
					}
					text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
			return new Script(text.toString(), sha1(text.toString()));
		}

		static String sha1(String text) {
			try {
				byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
				return HexFormat.of().formatHex(digest);
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
