package io.github.distlock.sample.demo;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the oversell demo, under {@code sample.demo.*}.
 *
 * @param sku the product the buyers fight over
 * @param stock the stock it starts each run with
 * @param buyers concurrent buyer threads
 * @param attempts purchase attempts in one run, spread over both instances
 * @param racyPause the pause between read and write in the unlocked path
 * @param timeout how long one run may take before the demo gives up
 */
@ConfigurationProperties("sample.demo")
public record DemoSettings(@DefaultValue("limited-sneaker") String sku, @DefaultValue("20") int stock,
		@DefaultValue("64") int buyers, @DefaultValue("200") int attempts, @DefaultValue("5ms") Duration racyPause,
		@DefaultValue("60s") Duration timeout) {

}
