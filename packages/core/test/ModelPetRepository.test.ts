import { testPetRepository } from "./PetRepositoryContract.js"
import * as ModelPetRepository from "./internal/ModelPetRepository.js"

testPetRepository("reference model", ModelPetRepository.layer())
