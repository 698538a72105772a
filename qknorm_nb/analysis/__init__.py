"From a table of finished runs to measures, verdicts, refinement, trends, forecasts, figures."
