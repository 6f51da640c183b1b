package io.github.distlock.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Keys as logs and messages show them: no character that could start a forged log line, no unbounded length.
 */
class DisplayedKeyTests {

	@Test
	void aPlainKeyIsShownAsItIs() {
		assertThat(DisplayedKey.of("order:42 {é}")).isEqualTo("order:42 {é}");
	}

	@Test
	void lineBreaksAndControlCharactersAreEscaped() {
		assertThat(DisplayedKey.of("a\r\n12:00:00 WARN forged\tx\u0000\u001b[31m\u2028\\"))
			.isEqualTo("a\\r\\n12:00:00 WARN forged\\tx\\u0000\\u001b[31m\\u2028\\\\")
			.doesNotContain("\r", "\n", "\u2028");
	}

	@Test
	void aLongKeyIsCutAndItsLengthSaid() {
		String shown = DisplayedKey.of("k".repeat(1024 * 1024));
		assertThat(shown).startsWith("k".repeat(DisplayedKey.MAX_SHOWN) + "...(1048576 characters)")
			.hasSize(DisplayedKey.MAX_SHOWN + "...(1048576 characters)".length());
	}

	@Test
	void aRequestForALongerKeyIsRefused() {
		String tooLong = "k".repeat(LockRequest.MAX_KEY_LENGTH + 1);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new LockRequest("n", tooLong, Duration.ofSeconds(1), Duration.ZERO, true, null))
			.withMessageContaining("at most 1024 characters")
			.withMessageContaining("...(1025 characters)");
	}

}
