package io.github.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.etcd.jetcd.ByteSequence;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LockKeysTests {

	private static final List<String> AWKWARD = List.of("a/b", "a%2Fb", "a", "", "%", ".", "..", "x:y", "{tag}",
			"line\r\nbreak", "with space", "\u0000", "\uD83D\uDD12", "\uFFFF", "k".repeat(1024));

	private final LockKeys keys = new LockKeys("/distlock/");

	@Test
	void escapedElementsHoldNoSeparatorAndStayDistinct() {
		for (String key : AWKWARD) {
			assertThat(LockKeys.escape(key)).as(key).doesNotContain("/").doesNotContain("\r").doesNotContain(" ");
		}
		assertThat(AWKWARD.stream().map(LockKeys::escape).distinct()).hasSameSizeAs(AWKWARD);
		assertThat(LockKeys.escape("a/b")).isEqualTo("a%2Fb");
		assertThat(LockKeys.escape("order-42_x.v")).isEqualTo("order-42_x.v");
		assertThat(LockKeys.escape("")).isEqualTo("%");
	}

	@Test
	void noLockQueueIsThePrefixOfAnother() {
		assertThat(text(this.keys.queue("n", "k"))).isEqualTo("/distlock/n/k/");
		assertThat(this.keys.queue("a/b", "c")).isNotEqualTo(this.keys.queue("a", "b/c"));
		for (String first : AWKWARD) {
			for (String second : AWKWARD) {
				if (!first.equals(second)) {
					assertThat(this.keys.queue("n", first).startsWith(this.keys.queue("n", second)))
						.as(first + " under " + second)
						.isFalse();
				}
			}
		}
	}

	@Test
	void abandonmentMarksLieOutsideEveryQueue() {
		ByteSequence mark = this.keys.abandoned("holder-1");
		assertThat(text(mark)).isEqualTo("/distlock/%%abandoned/holder-1");
		for (String name : AWKWARD) {
			assertThat(mark.startsWith(this.keys.queue(name, "k"))).as(name).isFalse();
		}
	}

	@Test
	void theRootMayNotBeEmpty() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LockKeys("/"));
		assertThatIllegalArgumentException().isThrownBy(() -> new LockKeys(""));
		assertThat(new LockKeys("/locks").rootPrefix()).isEqualTo("/locks/");
	}

	private static String text(ByteSequence bytes) {
		return bytes.toString(StandardCharsets.UTF_8);
	}

}
