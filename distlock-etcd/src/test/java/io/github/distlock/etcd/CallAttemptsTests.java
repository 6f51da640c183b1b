package io.github.distlock.etcd;

import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The attempts of one etcd call, answered by hand: what is sent again, when the call ends, and which failure it ends
 * with.
 */
class CallAttemptsTests {

	private static final Duration ATTEMPT = Duration.ofMillis(100);

	private final CallAttempts attempts = new CallAttempts(ATTEMPT);

	/** Every attempt sent, in order; none answered until a test answers it. */
	private final List<CompletableFuture<String>> sent = new CopyOnWriteArrayList<>();

	private CompletableFuture<String> send(int n) {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		this.sent.add(attempt);
		return attempt;
	}

	@Test
	void anAttemptLeftUnansweredIsSentAgainAndTheLaterAnswerIsTheCalls() throws Exception {
		CompletableFuture<String> call = this.attempts.call(this::send, TimeUnit.SECONDS.toNanos(10));
		awaitSent(2);
		this.sent.get(1).complete("second");
		assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("second");
	}

	@Test
	void aCallThatRunsOutEndsWithWhatAGivenUpAttemptWasToldNotWithTheLastTimeout() throws Exception {
		CompletableFuture<String> call = this.attempts.call(this::send, ATTEMPT.multipliedBy(3).toNanos());
		awaitSent(2);
		// The first attempt, given up, now learns why it had no answer.
		this.sent.get(0).completeExceptionally(new ConnectException("Connection refused"));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(ConnectException.class);
	}

	@Test
	void aCallThatRunsOutWithNothingToldEndsWithATimeout() {
		CompletableFuture<String> call = this.attempts.call(this::send, ATTEMPT.multipliedBy(2).toNanos());
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(TimeoutException.class);
		assertThat(this.sent).as("sent again while the bound lasted").hasSizeGreaterThanOrEqualTo(2);
	}

	@Test
	void aFailureEndsACallThatIsSentAgainOnlyWhenUnanswered() throws Exception {
		CompletableFuture<String> call = this.attempts.callAgainWhenUnanswered(this::send,
				TimeUnit.SECONDS.toNanos(10));
		awaitSent(2);
		this.sent.get(0).completeExceptionally(new ConnectException("Connection refused"));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(1, TimeUnit.SECONDS))
			.withCauseInstanceOf(ConnectException.class);
		int sentWhenFailed = this.sent.size();
		// Two attempts' time later, nothing more has been sent.
		Thread.sleep(ATTEMPT.multipliedBy(2).toMillis());
		assertThat(this.sent).hasSize(sentWhenFailed);
	}

	@Test
	void aFailureIsTriedAgainByAnOrdinaryCall() throws Exception {
		CompletableFuture<String> call = this.attempts.call(this::send, TimeUnit.SECONDS.toNanos(10));
		awaitSent(1);
		this.sent.get(0).completeExceptionally(new ConnectException("Connection refused"));
		awaitSent(2);
		this.sent.get(1).complete("after the failure");
		assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("after the failure");
	}

	private void awaitSent(int count) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.sent.size() < count) {
			assertThat(System.nanoTime() - deadline).as("%d attempts sent within 10 s", count).isNegative();
			Thread.sleep(5);
		}
	}

}
