package io.github.distlock.testing.example;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application of the example test of docs/testing-your-code.md: an order service whose payments are locked per order and whose
 * ledger is fenced by token.
 */
@SpringBootApplication
public class ExampleApplication {

}
