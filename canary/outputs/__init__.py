"""What a round shows people: the summary, the round view, the Allure report, the status site."""
